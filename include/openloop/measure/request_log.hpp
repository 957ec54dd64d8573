#pragma once
// requests.jsonl: one line per request as it ends (ids, lengths, every
// timestamp, status, error class), streamed so memory does not grow with the
// run; openloop's own request log, replayable as a trace.

#include "openloop/measure/request_metrics.hpp"

#include "openloop/measure/jsonl_file.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

// What the end of a request adds to its line beyond the timeline.
struct request_end {
    std::string_view status;  // "ok", "failed" or "unfinished"
    std::string_view error;   // error class name; empty: none
    std::int64_t end_ns = -1;
    std::int64_t output_tokens = 0;
    bool output_from_usage = false;
    bool output_counted = true;  // false: a non-streamed answer without usage ("output_tokens": null, source "none")
    bool bad_usage = false;  // written only when true: "bad_usage": true
    bool good = true;        // met the goodput SLO (--goodput); written only when false: "good": false
    std::int64_t cached_tokens = -1;
    std::int64_t tpot_ns = -1;
};

class request_log {
public:
    // Truncates path; throws std::runtime_error naming it when it cannot.
    // chunk_gaps: each line also lists the gaps between its content chunks (chunk_gaps_ms).
    // session_stride > 0: a sessions run, each line names its session and turn (index / stride, and from 1).
    void open(const std::string& path, std::string request_id_prefix, bool chunk_gaps = false, int session_stride = 0);
    bool is_open() const { return out_.is_open(); }
    // No-op while not open.
    void write(std::uint64_t index, const request_timeline& r, const request_end& end);
    void flush();
    // Flushes; throws std::runtime_error naming the file when any write failed.
    void check();
    void close();

private:
    jsonl_file out_;
    std::string id_prefix_;
    bool chunk_gaps_ = false;
    std::uint64_t session_stride_ = 0;
    std::string line_, id_;  // reused for every line
};

}  // namespace openloop
