#pragma once
// `openloop run [SCENARIO] [options]`: one benchmark run against a server.

#include "openloop/results/threshold.hpp"
#include "openloop/run/runner.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

struct run_command {
    run_options options;
    std::string target = "sim:cpu-small";  // URL or sim:PRESET
    std::vector<std::string> sim_args;     // passed to the simulator of a sim: target
    std::uint64_t seed = 0;
    bool json = false;
    std::vector<threshold> thresholds;  // --threshold: checked after the run (exit 6 when one fails)
    std::string append_result;          // --append-result FILE: a runs.csv row per run
    std::string label;                  // --label: the row's label
    bool help = false;
    std::string help_text;
};
// Parses `openloop run [SCENARIO] [options]`; flags on the command line win
// over the scenario file. Throws usage_error naming the flag or file.
run_command parse_run_command(const std::vector<std::string>& args);
// Parses, runs and prints; returns the exit status.
int run_main(const std::vector<std::string>& args);
// Runs a parsed command (a sim: target is started and stopped around it).
run_outcome run_parsed(run_command& cmd);

// The exit status a finished run reports (see openloop run --help): 130
// interrupted, 3 stopped early or invalid, 4 too many errors, else 0.
int run_exit_status(const run_outcome& outcome);
// After a run: its --threshold checks (each failure printed) and its
// --append-result row; the exit status, 6 for a failed threshold where the run
// itself would have exited 0.
int finish_run(const run_command& cmd, const run_outcome& outcome);

}  // namespace openloop
