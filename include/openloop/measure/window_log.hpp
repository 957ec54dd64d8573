#pragma once
// A soak's windows: per --interval window, what was offered and achieved, the
// window's own latency percentiles (from histograms reset each window, so
// exact for the window, never averages of percentiles), errors by class, the
// generator's RSS and CPU and the server signals sampled at the window's end.
// Each closed window is appended to windows.csv and windows.jsonl and
// flushed, so a killed soak loses at most the window it was in. Memory is
// fixed: a window's histograms are reused.

#include "openloop/base/output_file.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/measure/histogram.hpp"
#include "openloop/measure/request_metrics.hpp"
#include "openloop/measure/request_sink.hpp"
#include "openloop/watch/window_signals.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

// One closed window's figures, for the live endpoint and the progress line.
struct window_figures {
    std::int64_t index = -1;  // -1: none closed yet
    double seconds = 0;
    double offered_rate = 0, achieved_rate = 0;
    std::int64_t ttft_p50 = -1, ttft_p90 = -1, ttft_p99 = -1, itl_p99 = -1, tpot_p99 = -1, e2e_p99 = -1;  // ns
};

class window_log : public request_sink {
public:
    explicit window_log(std::chrono::nanoseconds window);

    // Truncates dir/windows.csv and dir/windows.jsonl; throws std::runtime_error naming them.
    void open(const std::string& dir);
    // Called when a window closes; must not block (it copies the latest sample).
    void set_signal_source(std::function<window_signals()> source) { signals_ = std::move(source); }
    // A soak's progress: one line on stderr per closed window.
    void print_windows(bool on) { print_ = on; }

    void start(std::int64_t origin_ns) override;  // the first call wins
    bool started() const { return origin_ns_ != 0; }
    // Closes (writes) every window that ended at or before t.
    void advance(std::int64_t t, std::uint64_t in_flight) override;
    // Writes the current, partial window: the end of the run.
    void close_window(std::int64_t t, std::uint64_t in_flight);

    void offered() override { ++offered_; }
    void refused() override { ++refused_; }
    void lag(std::int64_t ns) override { lag_.record(ns); }
    void failed(error_class cls) override;
    void completed(const request_timeline& r, const request_metrics& m) override;

    const window_figures& last() const { return last_; }

    void flush();
    void check();  // flushes; throws std::runtime_error naming the file when a write failed
    void close();

private:
    void emit(std::int64_t end_ns, std::uint64_t in_flight, bool partial = false);
    void write_csv_header(const window_signals& s);

    std::int64_t window_ns_;
    std::int64_t origin_ns_ = 0;
    std::int64_t index_ = 0;
    std::uint64_t offered_ = 0, refused_ = 0, completed_ = 0, failed_ = 0;
    std::array<std::uint64_t, error_class_count> failed_by_class_{};
    std::int64_t output_tokens_ = 0;
    std::int64_t reasoning_tokens_ = 0;
    std::uint64_t thinking_ = 0;  // completed requests that thought: the window reports TTFA
    histogram ttft_, itl_, tpot_, e2e_, lag_, ttfa_;
    double cpu_at_start_ = -1;
    std::int64_t cpu_wall_ns_ = 0;
    std::function<window_signals()> signals_;
    std::vector<std::string> csv_signals_;  // signal columns, fixed by the first row
    bool csv_header_ = false;
    bool print_ = false;
    window_figures last_;
    output_file csv_, jsonl_;
    std::string csv_path_, jsonl_path_;
};

}  // namespace openloop
