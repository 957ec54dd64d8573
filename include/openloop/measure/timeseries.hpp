#pragma once
// timeseries.csv: per interval of the run, offered and achieved requests,
// in flight, output tokens, TTFT p50/p99 and the generator's own RSS, so a
// soak shows drift over time. Window w covers [origin + w·window,
// origin + (w+1)·window); events that arrive late land in the current one.
// The latest rows are also kept in memory, for the live page.

#include "openloop/base/output_file.hpp"
#include "openloop/measure/histogram.hpp"
#include "openloop/measure/request_sink.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <string>

namespace openloop {

// One row of timeseries.csv, as the live page draws it.
struct timeseries_row {
    double t_s = 0;  // the window's start, from the run's origin
    std::uint64_t offered = 0, refused = 0, completed = 0, failed = 0, in_flight = 0;
    std::int64_t output_tokens = 0;
    double ttft_p50_ms = -1, ttft_p99_ms = -1;  // -1: nothing completed in it
};

class timeseries : public request_sink {
public:
    explicit timeseries(std::chrono::nanoseconds window);

    // Truncates path and writes the header; throws std::runtime_error naming it.
    void open(const std::string& path);

    // Windows count from the first origin given; later calls change nothing.
    void start(std::int64_t origin_ns) override;
    std::int64_t origin_ns() const { return origin_ns_; }  // 0 until started

    // Writes a row for every window that ended at or before t.
    void advance(std::int64_t t, std::uint64_t in_flight) override;
    // Writes the current, partial window (the end of the run).
    void close_window(std::uint64_t in_flight);

    // What happened in the current window.
    void offered() override { ++offered_; }
    void refused() override { ++refused_; }
    void failed(error_class) override { ++failed_; }
    void completed(const request_timeline& r, const request_metrics& m) override;

    // The latest rows, oldest first: the last 15 minutes at 1 s windows.
    const std::deque<timeseries_row>& recent() const { return recent_; }
    static constexpr std::size_t recent_rows = 900;

    void flush();
    // Flushes; throws std::runtime_error naming the file when any write failed.
    void check();
    void close();

private:
    void emit_row(std::uint64_t in_flight);

    std::int64_t window_ns_;
    std::int64_t origin_ns_ = 0;
    std::int64_t index_ = 0;
    std::uint64_t offered_ = 0;
    std::uint64_t refused_ = 0;
    std::uint64_t completed_ = 0;
    std::uint64_t failed_ = 0;
    std::int64_t output_tokens_ = 0;
    histogram ttft_;
    std::deque<timeseries_row> recent_;
    output_file out_;
    std::string path_;
};

}  // namespace openloop
