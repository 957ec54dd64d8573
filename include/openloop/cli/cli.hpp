#pragma once
// Command line: `openloop <command> [options]`. Every option can also live in
// a scenario file (Program_options config syntax); the command line wins.

#include "openloop/run/runner.hpp"
#include "openloop/sim/sim.hpp"
#include "openloop/run/sweep_runner.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace openloop {

// --help lines: wide enough that descriptions read as sentences.
inline constexpr unsigned help_width = 120;

// Thrown for bad flags and values; main prints it and exits with status 2.
struct usage_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

struct sim_command {
    sim_config config;
    bool capacity = false;  // print the predicted capacity and exit
    int input_len = 512;
    int output_len = 128;
    bool json = false;
    bool help = false;
    std::string help_text;
};
sim_command parse_sim_command(const std::vector<std::string>& args);
// `openloop sim ARGS`: serves, or prints --capacity; returns the exit status.
int sim_main(const std::vector<std::string>& args);

struct run_command {
    run_options options;
    std::string target = "sim:cpu-small";  // URL or sim:PRESET
    std::vector<std::string> sim_args;     // passed to the simulator of a sim: target
    std::uint64_t seed = 0;
    bool json = false;
    bool help = false;
    std::string help_text;
};
// Parses `openloop run [SCENARIO] [options]`; flags on the command line win
// over the scenario file. Throws usage_error naming the flag or file.
run_command parse_run_command(const std::vector<std::string>& args);

struct sweep_command {
    run_command run;        // target, workload and limits shared by every stage
    sweep_options options;
    bool json = false;
    bool help = false;
    std::string help_text;
};
// Parses `openloop sweep [SCENARIO] [options]`: every run option plus the sweep's own.
sweep_command parse_sweep_command(const std::vector<std::string>& args);

// "250ms", "10s", "2m", "1h", or plain seconds; throws usage_error naming the flag.
double parse_duration_s(std::string_view text, std::string_view flag);
// "1%", "0.5 %" or "0.01": a fraction in [0, 1]; throws usage_error naming the flag.
double parse_fraction(std::string text, std::string_view flag);

// The whole program: dispatches on the command word. Returns the exit status.
int cli_main(int argc, char** argv);

}  // namespace openloop
