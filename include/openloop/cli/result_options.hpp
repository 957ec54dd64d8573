#pragma once
// The Timeouts-and-limits and Results groups of run, sweep and soak: how long
// each stage of a request may take, how a run ends, what it writes and how it
// is judged (--lag-bound, --max-error-rate, --goodput), and the record of every
// option as given (secret headers redacted) for summary.json.

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace openloop {

boost::program_options::options_description limits_options();
boost::program_options::options_description results_options();
// Throw usage_error (or input_error) naming the flag and the bad value.
void fill_limits(const boost::program_options::variables_map& vm, run_options& o);
void fill_results(const boost::program_options::variables_map& vm, run_command& cmd);

}  // namespace openloop
