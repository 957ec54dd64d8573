#pragma once
// The one figure a scenario is about (--headline), printed first: a
// customer-service chat is judged by TTFT, code completion by ITL, an agent
// by its chain's latency, a batch job by throughput. Pure: from a run_result.

#include "openloop/results/run_result.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// ttft, itl, tpot, e2e, session (a session's or agent chain's first turn due
// to its last token) or throughput; throws input_error listing them.
void check_headline(std::string_view metric);

// The table's first line after the verdict, e.g. "headline       TTFT p50 45.1 ms  p90 ...  p99 ..."; empty without one.
std::string headline_line(const run_result& r);
// summary.json's "headline": {"metric", "p50_ms", "p90_ms", "p99_ms"} or, for
// throughput, {"metric", "requests_per_s", "output_tokens_per_s"}; empty without one.
std::optional<boost::json::object> headline_json(const run_result& r);

}  // namespace openloop
