#pragma once
// A run's preparation: everything settled before its schedule, once per command
// (a sweep's stages share it). The workload is read (its trace's conversations
// grouped), the media set made on every core, and the server asked, each call
// bounded and ended by Ctrl-C: its model when --model is not given, how lengths
// become prompts on it (the tokenizer's calibration), the tools' prompt tokens.
// A signal on the way is kept: the plan says so, and its run sends nothing.

#include "openloop/run/run_plan.hpp"
#include "openloop/run/runner.hpp"

namespace openloop {

// Throws what the workload and the calibration throw (input_error for a bad
// input file; std::runtime_error for a server that cannot be reached).
run_plan prepare_run(const run_options& asked);

}  // namespace openloop
