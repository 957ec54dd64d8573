#pragma once
// A soak's verdicts: windows.jsonl read back (as a finished soak writes it,
// or as a killed one left it), each watched signal's series after the
// warm-up windows judged by results/trend (slope per hour with its interval,
// a step in level), and the headline that says whether anything grows or
// drifts. Pure: text in, values and text out. `openloop soak` and
// `openloop report` both go through here.

#include "openloop/results/trend.hpp"

#include <boost/json/object.hpp>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

// One window as the verdicts see it: its end time and its figures by key
// (ttft_p99_ms, server_rss_mib, signals.kv_usage, ...).
struct soak_window_row {
    double t_end_s = 0;
    bool partial = false;  // the run's last window, cut short by its end: not judged
    std::vector<std::pair<std::string, double>> values;
};

struct soak_windows {
    std::vector<soak_window_row> rows;
    std::size_t bad_lines = 0;       // lines that are not a window (a torn last line after kill -9)
    std::size_t first_bad_line = 0;  // 1-based; 0: none
    // Figures no window of openloop's holds (past max_window_value), left out
    // of their series; the first named: "window 3's ttft_ms.p99, 1e+308".
    std::size_t skipped_values = 0;
    std::string first_skipped;
};

// The largest magnitude a window's figure is taken at: far past any latency,
// rate, memory or server signal, and far below where a trend's sums or a
// chart's span overflow a double. Beyond it a value was damaged.
inline constexpr double max_window_value = 1e15;

// Never throws: a line that does not parse, or whose end time is not a
// time (negative, or past max_window_value), is counted and skipped; a
// figure past max_window_value is skipped alone, and counted.
soak_windows parse_windows_jsonl(std::string_view text);

struct soak_verdict {
    std::string key;    // the window figure: "server_rss_mib"
    std::string label;  // "server RSS (/proc)"
    std::string unit;   // "MiB"
    bool worse_up = true;  // growth is the bad direction (false: throughput, which sags)
    series_trend trend;
    std::vector<trend_point> points;  // the series judged, for report.html's chart
    // Judged windows whose figure was infinite (a TTFA percentile past a request that never
    // answered): the trend is the finite windows', and any such window is a change.
    std::size_t infinite = 0;
};

struct soak_report {
    std::size_t windows = 0;         // in the file
    std::size_t warmup_windows = 0;  // left out of every series
    bool partial_left_out = false;   // the last window was partial and is not judged
    double hours = 0;                // the judged span
    std::vector<soak_verdict> verdicts;
    std::string headline;  // the soak's first line
    bool changed = false;  // some signal grew, declined or stepped
    // The windows' damaged figures left out, in words ("2 damaged values
    // skipped, the first window 3's ttft_ms.p99, 1e+308"); empty when none.
    std::string skipped;
};

soak_report judge_soak(const soak_windows& windows, std::size_t warmup_windows);

// summary.json's "soak": {"headline", "windows", "warmup_windows", "hours",
// "verdicts": [{"signal", "label", "unit", "verdict", "text", "slope_per_h",
// "ci_low", "ci_high", "intercept", "n", "change_point"}]}, and "skipped"
// when damaged values were left out.
boost::json::object soak_json(const soak_report& report);

// The headline, what was skipped, then one line per signal.
std::string format_soak(const soak_report& report);

}  // namespace openloop
