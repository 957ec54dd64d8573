#pragma once
// report.html written into a result directory from the files already there:
// sweep.json makes a sweep's page; summary.json a run's, a merge's or a sweep
// stage's, with timeseries.csv's seconds and, for a soak, windows.jsonl's
// signals. Run, sweep, soak and merge write it after their results; `openloop
// report DIR --html` writes it for any result directory, old ones included.

#include "openloop/run/result_dir.hpp"

#include <filesystem>
#include <optional>

namespace openloop {

// The page written; throws input_error naming the file when the directory
// holds neither sweep.json nor a readable summary.json.
std::filesystem::path write_report_html(const result_dir& dir);

// The same after a run's results are written: a report that cannot be drawn
// never costs the results, it is said on stderr. Empty when not written.
std::optional<std::filesystem::path> try_write_report_html(const result_dir& dir);

}  // namespace openloop
