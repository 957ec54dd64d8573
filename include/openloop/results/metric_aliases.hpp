#pragma once
// summary.json's "aliases": each of our metric keys under the names vLLM,
// SGLang, GenAI-Perf, AIPerf and guidellm give the same quantity
// (docs/metrics.md has the caveats where definitions differ).

#include <boost/json/object.hpp>

namespace openloop {

boost::json::object metric_aliases();

}  // namespace openloop
