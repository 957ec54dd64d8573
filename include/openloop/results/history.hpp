#pragma once
// runs.csv: one row per run, appended by `--append-result FILE`, so nightly
// runs become a table a spreadsheet or dashboard reads. The columns are
// fixed (history_header), the values those of summary.json. Pure.

#include "openloop/results/run_result.hpp"

#include <string>

namespace openloop {

std::string history_header();  // with its newline
// date: when the run started, ISO 8601; label: the user's (may be empty);
// out_dir: where its files are (may be empty).
std::string history_row(const run_result& r, const std::string& date, const std::string& label,
                        const std::string& out_dir);

}  // namespace openloop
