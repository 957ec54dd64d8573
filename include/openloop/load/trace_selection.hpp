#pragma once
// What of a trace a replay sends: a window of its time, its first requests,
// at a speed (or the speed that gives a mean rate). Pure.

#include "openloop/load/trace_entry.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openloop {

struct trace_selection {
    std::int64_t start_ns = 0;  // window, in trace time (before speed)
    std::int64_t end_ns = -1;
    double speed = 1.0;
    std::size_t max_count = 0;
    // > 0: the speed that makes the selection's mean rate this many
    // requests/s, keeping its shape (speed is then ignored).
    double rate = 0;
};

// Entries with start_ns <= at_ns < end_ns (end_ns < 0: no end), rebased so
// start_ns becomes 0 (gaps from the window start are kept).
std::vector<trace_entry> window_trace(std::vector<trace_entry> entries, std::int64_t start_ns,
                                      std::int64_t end_ns);
// at_ns divided by speed (> 0, else std::invalid_argument): 2 replays twice as fast.
std::vector<trace_entry> scale_trace(std::vector<trace_entry> entries, double speed);
// The first max_count entries (0: all).
std::vector<trace_entry> limit_trace(std::vector<trace_entry> entries, std::size_t max_count);

// Requests per second of entries' own time: (n - 1) / span; 0 when fewer
// than two or all at one time.
double trace_mean_rate(const std::vector<trace_entry>& entries);

struct trace_pick {
    std::vector<trace_entry> entries;
    double speed = 1.0;  // the speed applied
};
// Window, then count, then speed (which commute). A rate with a selection of
// fewer than two requests, or all at one time, throws std::invalid_argument.
trace_pick pick_trace(std::vector<trace_entry> entries, const trace_selection& selection);
// pick_trace's entries.
std::vector<trace_entry> select_trace(std::vector<trace_entry> entries, const trace_selection& selection);

}  // namespace openloop
