#pragma once
// sweep.md and sweep.csv: one row per stage, the knees marked, rendered from
// the typed sweep report.

#include "openloop/results/sweep_report.hpp"

#include <string>

namespace openloop {

std::string sweep_markdown(const sweep_report& report);
std::string sweep_csv(const sweep_report& report);

}  // namespace openloop
