#pragma once
// The names of the files in a result directory, each written once here.
// Reading a directory back and writing one whole is run/result_dir's; the
// names live apart, in base/, because measure/ (the reporter's request log,
// timeseries and soak windows) writes its files into the directory and may
// not reach up to run/. README.md and tools/ (the plot scripts) name the same
// files: a name changed here is changed there too.

#include <string_view>

namespace openloop::result_file {

// A run's (a sweep stage's, a soak's, a merge's) directory.
inline constexpr std::string_view run_json = "run.json";              // how it was driven, before its first request
inline constexpr std::string_view summary_json = "summary.json";      // its result, at its end
inline constexpr std::string_view summary_unreadable = "summary.json.unreadable";  // set aside by `openloop report`
inline constexpr std::string_view requests_jsonl = "requests.jsonl";  // a line per request, flushed every second
inline constexpr std::string_view sessions_jsonl = "sessions.jsonl";  // a line per session as it ends
inline constexpr std::string_view timeseries_csv = "timeseries.csv";  // a row per second
inline constexpr std::string_view windows_csv = "windows.csv";        // a soak's row per window
inline constexpr std::string_view windows_jsonl = "windows.jsonl";    // the same windows, read back to judge them
// Any result directory's (a sweep's too): the page a person opens, drawn from the files above.
inline constexpr std::string_view report_html = "report.html";

// A sweep's directory: the report, and a directory per stage (run/result_dir's stage_dir_name).
inline constexpr std::string_view sweep_json = "sweep.json";
inline constexpr std::string_view sweep_md = "sweep.md";
inline constexpr std::string_view sweep_csv = "sweep.csv";
// In a sharded sweep's stage directory, beside the shards' parts: the stage merged.
inline constexpr std::string_view merged_stage = "merged";

}  // namespace openloop::result_file
