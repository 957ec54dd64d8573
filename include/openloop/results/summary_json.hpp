#pragma once
// summary.json, rendered from the typed run result: the verdict, every
// count, throughput and latency family under vLLM `bench serve` key names plus
// ours (docs/metrics.md), the serialized histograms (mergeable), the aliases
// to other tools' names, and the run's context.

#include "openloop/results/run_result.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

boost::json::object summary_json(const run_result& result);

// Why text is not a summary.json openloop could have written (not JSON, with
// where it broke; not an object; no verdict; a histogram that does not read
// back), or nullopt when it reads as one.
std::optional<std::string> summary_problem(std::string_view text);

}  // namespace openloop
