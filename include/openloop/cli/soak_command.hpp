#pragma once
// `openloop soak [SCENARIO] [options]`: a long open-loop run summarised per
// window, the server watched beside it, and a verdict per signal on whether
// it grows or drifts.

#include "openloop/cli/run_command.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace openloop {

class result_dir;

struct soak_command {
    run_command run;
    std::size_t warmup_windows = 2;
    bool help = false;
    std::string help_text;
};
// Throws usage_error naming the flag or FILE:LINE.
soak_command parse_soak_command(const std::vector<std::string>& args);
// Parses, soaks and prints; returns the exit status.
int soak_main(const std::vector<std::string>& args);

// summary.json of a soak: the run's, with "soak" (the verdicts from
// DIR/windows.jsonl) added; writes it and returns the verdicts' text.
std::string write_soak_summary(const result_dir& dir, boost::json::object summary, std::size_t warmup_windows,
                               bool* changed);

}  // namespace openloop
