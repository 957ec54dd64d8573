#pragma once
// The progress line a run prints on stderr, on the reporter's thread: once an
// interval, overwritten in place, with the completions per second since the
// line before. Time comes in as arguments, so it is tested without a clock.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace openloop {

struct progress_figures {
    double elapsed_s = 0;  // since the run's start
    std::uint64_t sent = 0;
    std::size_t in_flight = 0;
    std::uint64_t completed = 0;
    std::uint64_t failed = 0;
    double ttft_p50_ms = 0;
    double ttft_p99_ms = 0;
};

class progress_line {
public:
    explicit progress_line(std::chrono::milliseconds interval, std::FILE* out = stderr);
    // True when a line is due at now_ns; the first call starts the interval.
    bool due(std::int64_t now_ns);
    // Prints the line for now_ns (the next one is due an interval later).
    void print(std::int64_t now_ns, const progress_figures& f);
    // The line as print writes it, for tests; it updates what the rate counts from.
    std::string text(std::int64_t now_ns, const progress_figures& f);
    bool printed() const { return printed_; }

private:
    std::int64_t interval_ns_;
    std::FILE* out_;
    std::int64_t next_ns_ = 0;
    std::int64_t last_ns_ = 0;
    std::uint64_t last_completed_ = 0;
    bool printed_ = false;
};

}  // namespace openloop
