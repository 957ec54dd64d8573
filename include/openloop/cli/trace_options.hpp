#pragma once
// The trace options shared by run, sweep and soak: the file, its format or
// column mapping, bad rows, and the selection replayed (window, count, speed
// or rate, once or looped).

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace openloop {

boost::program_options::options_description trace_options();

// cmd.options.workload's trace fields := what vm says; reads --rate too (with
// a trace it sets the replay's mean rate). Throws usage_error naming the
// flags of a bad value or combination.
void fill_trace(const boost::program_options::variables_map& vm, run_command& cmd);

}  // namespace openloop
