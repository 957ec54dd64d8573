#pragma once
// The flags of agents and reasoning models: --tools and the tool loop's
// (load/tools.hpp), --response-format and --reasoning-effort.

#include "openloop/run/runner.hpp"

#include <boost/program_options.hpp>

namespace openloop {

boost::program_options::options_description agent_options();
// o's tools, response format and reasoning effort := what vm says, once the
// endpoint is known (before the sessions, whose plan counts the tool steps).
// Throws usage_error naming the flag (or the schema file) at fault.
void fill_agent(const boost::program_options::variables_map& vm, run_options& o);

}  // namespace openloop
