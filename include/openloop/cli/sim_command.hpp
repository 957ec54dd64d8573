#pragma once
// `openloop sim [options]`: the built-in inference-engine simulator.

#include "openloop/sim/sim.hpp"

#include <string>
#include <vector>

namespace openloop {

struct sim_command {
    sim_config config;
    bool capacity = false;  // print the predicted capacity and exit
    int input_len = 512;
    int output_len = 128;
    bool json = false;
    bool help = false;
    std::string help_text;
};
// Throws usage_error naming the flag or the config file.
sim_command parse_sim_command(const std::vector<std::string>& args);
// `openloop sim ARGS`: serves, or prints --capacity; returns the exit status.
int sim_main(const std::vector<std::string>& args);

}  // namespace openloop
