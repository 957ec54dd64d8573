#pragma once
// A run's statistics rebuilt from its requests.jsonl: what `openloop report`
// gives a run that was killed before it wrote summary.json. Each line is one
// request that ended; the counts, token totals and the TTFT, TPOT, E2E, lag,
// connect and TTFB histograms come back exactly as the run had them (the
// log's times are whole nanoseconds). ITL does not: the log keeps no
// per-chunk times. Requests still in flight at the kill have no line and are
// not counted. Pure: text in, statistics out.

#include "openloop/measure/run_stats.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace openloop {

struct rebuilt_stats {
    run_stats stats;
    std::size_t lines = 0;           // request lines read (warm-up ones included)
    std::size_t bad_lines = 0;       // lines that are not a request (a torn last line)
    std::size_t first_bad_line = 0;  // 1-based; 0: none
};

// One measured request that ended, as the statistics counted it (ns; -1
// where it has no such figure; ttfa histogram::infinite for a request that
// streamed and never answered): what `openloop compare` resamples.
struct request_sample {
    bool ok = false;
    std::int64_t ttft = -1, tpot = -1, e2e = -1, ttfa = -1;
    std::int64_t output_tokens = 0;
    int model = -1;  // a mixed run's: its model's place in the rebuilt stats' by_model; -1: none named
};

// Never throws: a line that is not a request is counted and skipped. With
// samples, each measured request that ended is also appended to it. With
// stage_view, also what a sweep stage is judged on (the reporter's
// steady_throughput): the send window's completions and the in-flight
// series, rebuilt from each request's intended time and end.
// Lines of a sessions run (with "session" and "turn") also fill stats.sessions' per-turn rows.
rebuilt_stats rebuild_stats(std::string_view requests_jsonl, std::vector<request_sample>* samples = nullptr,
                            bool stage_view = false);

// A sessions run's sessions.jsonl (session_log.hpp) into the session counts and latency;
// returns the lines read. Never throws: a line that is not a session's end is skipped.
std::size_t rebuild_sessions(std::string_view sessions_jsonl, session_stats& into);

}  // namespace openloop
