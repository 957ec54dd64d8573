#pragma once
// `openloop sweep [SCENARIO] [options]`: stages at rising rates, to find the knee.

#include "openloop/cli/run_command.hpp"
#include "openloop/results/sweep_threshold.hpp"
#include "openloop/run/sweep_runner.hpp"

#include <string>
#include <vector>

namespace openloop {

struct sweep_command {
    run_command run;        // target, workload and limits shared by every stage
    sweep_options options;
    std::vector<sweep_threshold> thresholds;  // --threshold: gates on the knees
    bool json = false;
    bool help = false;
    std::string help_text;
};
// Parses `openloop sweep [SCENARIO] [options]`: every run option plus the sweep's own.
sweep_command parse_sweep_command(const std::vector<std::string>& args);
// Parses, sweeps and prints; returns the exit status.
int sweep_main(const std::vector<std::string>& args);

}  // namespace openloop
