#pragma once
// The options `run`, `sweep` and `soak` share, in the groups --help shows:
// target (target_options), endpoint, load and workload (load_options), RAG,
// sessions, trace, timeouts and limits and results (result_options), server
// signals; each group names its flags in one place and parses them into typed
// values there.

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <string>

namespace openloop {

// How values are written (base/quantity.hpp), for the --help of run and sweep.
inline constexpr const char* value_syntax_help =
    "Durations (--duration, --warmup, timeouts, --lag-bound, --goodput and --slo limits, --rate-profile steps)\n"
    "are a number with unit us, ms, s, m or h: 250ms, 1.5s, 2m. A bare number is seconds everywhere, so\n"
    "--goodput ttft=0.5 and --slo ttft_p99=0.5 both mean 500 ms. Fractions (--max-error-rate, --precision,\n"
    "--slo error_rate) are 0.01 or 1%.\n\n";

boost::program_options::options_description run_option_groups();

// "results/KIND-YYYYmmdd-HHMMSS" (local time): where a command writes
// without --out.
std::string default_out_dir(const char* kind);

// cmd := what vm says. With for_sweep, --concurrency is the sweep's list and
// is left to it. Throws usage_error naming the flag and the bad value.
void fill_run_options(const boost::program_options::variables_map& vm, run_command& cmd, bool for_sweep);

}  // namespace openloop
