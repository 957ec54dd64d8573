#pragma once
// summary.json, rendered from the typed run result: the verdict, every
// count, throughput and latency family under vLLM `bench serve` key names plus
// ours (docs/metrics.md), the serialized histograms (mergeable), the aliases
// to other tools' names, and the run's context.

#include "openloop/results/run_result.hpp"

#include <boost/json/object.hpp>

namespace openloop {

boost::json::object summary_json(const run_result& result);

}  // namespace openloop
