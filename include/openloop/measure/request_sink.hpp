#pragma once
// What the reporter's request_recorder hands on once it has applied an event
// to a request's timeline and to run_stats: the files and windows that follow
// the run (requests.jsonl, sessions.jsonl, timeseries.csv, a soak's windows)
// each take what they need from it and leave the rest (every call is a no-op
// unless a sink overrides it). Called on the reporter thread only.

#include "openloop/base/error_class.hpp"
#include "openloop/measure/request_metrics.hpp"

#include <cstdint>
#include <string_view>

namespace openloop {

// How a request ended, as its requests.jsonl line tells it beyond the timeline.
struct logged_end {
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
    // A thinking model's split of the output (request_metrics); written only
    // for a request that thought or called a tool, so other lines stay as they were.
    std::int64_t reasoning_ns = -1;
    std::int64_t reasoning_tokens = 0;
    std::int64_t answer_tokens = 0;
    reasoning_source reasoning_from = reasoning_source::none;
    bool ended_thinking = false;
};

struct session_end_line;

class request_sink {
public:
    virtual ~request_sink() = default;

    // The clock: the run's origin (the first call wins), then each event's
    // time before the event is applied, with the measured requests in flight.
    virtual void start(std::int64_t /*origin_ns*/) {}
    virtual void advance(std::int64_t /*t_ns*/, std::uint64_t /*in_flight*/) {}

    // Measured requests only: warm-up ones are in no count.
    virtual void offered() {}
    virtual void refused() {}
    virtual void lag(std::int64_t /*ns*/) {}  // a send, late by this much
    virtual void completed(const request_timeline& /*r*/, const request_metrics& /*m*/) {}
    virtual void failed(error_class /*cls*/) {}

    // Every request as it ends, warm-up ones too (r.warmup), and every session.
    virtual void ended(std::uint64_t /*index*/, const request_timeline& /*r*/, const logged_end& /*end*/) {}
    virtual void session_ended(const session_end_line& /*s*/) {}

protected:
    request_sink() = default;
    request_sink(const request_sink&) = default;
    request_sink& operator=(const request_sink&) = default;
};

}  // namespace openloop
