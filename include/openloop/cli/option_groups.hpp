#pragma once
// The options `run` and `sweep` share, in the groups --help shows: target,
// load, workload, timeouts and limits, results.

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace openloop {

boost::program_options::options_description run_option_groups();

// cmd := what vm says. With for_sweep, --concurrency is the sweep's list and
// is left to it. Throws usage_error naming the flag and the bad value.
void fill_run_options(const boost::program_options::variables_map& vm, run_command& cmd, bool for_sweep);

}  // namespace openloop
