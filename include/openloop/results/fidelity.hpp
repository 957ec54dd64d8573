#pragma once
// Length fidelity: whether the server saw the workload that was asked for.
// Intended input lengths against the server's usage.prompt_tokens, and
// max_tokens against the output tokens received, in summary.json and the
// table, so a number measured on a different workload does not pass unseen.

#include "openloop/measure/run_stats.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>

namespace openloop {

// {"tokenizer", "input": {checked, exact, exact_fraction, intended_tokens,
// server_tokens, ratio}, "output": {completed, requested_tokens,
// received_tokens, at_max_tokens, ratio}}; a ratio is null without data.
boost::json::object length_fidelity(const run_stats& stats, std::string_view tokenizer);

// The same in one line, for the table.
std::string describe_length_fidelity(const run_stats& stats, std::string_view tokenizer);

}  // namespace openloop
