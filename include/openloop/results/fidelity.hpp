#pragma once
// Length fidelity: whether the server saw the workload that was asked for.
// Intended input lengths against the server's usage.prompt_tokens, and
// max_tokens against the output tokens received, in summary.json and the
// table, so a number measured on a different workload does not pass unseen.
// The fidelity report adds the request-by-request view (measure/
// replay_fidelity): error percentiles and the worst requests, and for a trace
// replay the send times, requests per minute and prefix reuse.

#include "openloop/measure/run_stats.hpp"
#include "openloop/results/run_context.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// {"tokenizer", "input": {checked, exact, exact_fraction, intended_tokens,
// server_tokens, ratio}, "output": {completed, requested_tokens,
// received_tokens, at_max_tokens, ratio}}; a ratio is null without data.
boost::json::object length_fidelity(const run_stats& stats, std::string_view tokenizer);

// The same in one line, for the table.
std::string describe_length_fidelity(const run_stats& stats, std::string_view tokenizer);

// summary.json's "fidelity" (docs/metrics.md): {"replay", "input", "output",
// "rows_skipped", "server_refusals"}, and for a replay "send_time",
// "per_minute" and "prefix_reuse".
boost::json::object replay_fidelity_json(const run_stats& stats, const run_context& context);

// The same for the table, a line each (without the leading label).
std::vector<std::string> describe_replay_fidelity(const run_stats& stats, const run_context& context);

}  // namespace openloop
