#pragma once
// The multi-turn session options of run and soak: how many turns each
// session has and how long its user thinks between them.

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace openloop {

boost::program_options::options_description session_options();

// cmd.options.sessions := what vm says, once the rest of cmd is filled (it
// is checked against the endpoint, the loop and the source). Throws
// usage_error naming the flags of a bad value or combination.
void fill_sessions(const boost::program_options::variables_map& vm, run_command& cmd, bool for_sweep);

}  // namespace openloop
