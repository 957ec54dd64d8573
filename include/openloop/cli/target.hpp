#pragma once
// Where `run` and `sweep` send their load: a URL as given, or for a
// sim:PRESET target the simulator, started as a child for as long as needed.

#include "openloop/cli/child_process.hpp"
#include "openloop/cli/run_command.hpp"
#include "openloop/wire/target.hpp"

#include <optional>
#include <string>

namespace openloop {

struct resolved_target {
    std::optional<sim_child> sim;  // stops the simulator when it goes
    target_url url;  // the URL given, or the simulator's
};

// Throws usage_error for an unknown preset, std::runtime_error when the simulator does not start.
resolved_target resolve_target(const run_command& cmd);

// What run, sweep and soak settle in o before their run is prepared (run/prepare.hpp):
// the target (keep the result: a sim: target's simulator lives as long), --metrics-listen's
// endpoint, the descriptor limit; --insecure said on stderr. Throws as resolve_target.
resolved_target settle_run(const run_command& cmd, run_options& o);

}  // namespace openloop
