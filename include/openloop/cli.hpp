#pragma once
// Command line: `openloop <command> [options]`. Every option can also live in
// a scenario file (Program_options config syntax); the command line wins.

#include "openloop/sim.hpp"

#include <stdexcept>
#include <string>
#include <vector>

namespace openloop {

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

// The whole program: dispatches on the command word. Returns the exit status.
int cli_main(int argc, char** argv);

}  // namespace openloop
