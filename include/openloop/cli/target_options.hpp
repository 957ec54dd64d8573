#pragma once
// The Target group of run, sweep and soak: where requests go (--target,
// --model, --header, the API key, TLS, --request-id-prefix, --sim-arg), and
// the checks that keep every header line whole.

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <string>

namespace openloop {

boost::program_options::options_description target_options();
// Throws usage_error naming the flag, never a header's value (it may be a secret).
void fill_target(const boost::program_options::variables_map& vm, run_command& cmd);
// Whether a header of this name may carry a secret (authorization, key, token,
// secret, cookie, password): its value is redacted wherever options are written.
bool secret_header(std::string name);

}  // namespace openloop
