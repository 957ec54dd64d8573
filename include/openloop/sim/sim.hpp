#pragma once
// `openloop sim`: an OpenAI-compatible streaming HTTP/1.1 server in front of
// the simulated engine (engine.hpp). It is the default target, the
// integration-test server and the benchmark target.

#include "openloop/sim/config.hpp"

namespace openloop {

// Serves until SIGINT or SIGTERM. Once listening it prints one line to stdout,
// "openloop-sim listening on http(s)://HOST:PORT", which a parent process reads
// to learn the port. Throws std::runtime_error on setup failures.
void run_sim(const sim_config& cfg);

}  // namespace openloop
