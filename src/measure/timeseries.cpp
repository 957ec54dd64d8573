#include "openloop/measure/timeseries.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/measure/resource_usage.hpp"

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <stdexcept>

namespace openloop {

namespace {


// Resident set size of this process, MiB; negative when /proc is unreadable.
double rss_mb() {
    const std::int64_t bytes = resident_memory_bytes();
    return bytes < 0 ? -1.0 : static_cast<double>(bytes) / (1024.0 * 1024.0);
}

}  // namespace

timeseries::timeseries(std::chrono::nanoseconds window) : window_ns_(std::max<std::int64_t>(1, window.count())) {}

void timeseries::open(const std::string& path) {
    path_ = path;
    out_.open(path_);
    out_ << "t_s,offered,refused,completed,failed,in_flight,output_tokens,"
            "ttft_p50_ms,ttft_p99_ms,generator_rss_mb\n";
}

void timeseries::start(std::int64_t origin_ns) {
    if (origin_ns_ == 0) {
        origin_ns_ = origin_ns;
    }
}

void timeseries::advance(std::int64_t t, std::uint64_t in_flight) {
    if (origin_ns_ == 0) {
        return;
    }
    while (t >= origin_ns_ + (index_ + 1) * window_ns_) {
        emit_row(in_flight);
        ++index_;
    }
}

void timeseries::close_window(std::uint64_t in_flight) {
    if (origin_ns_ != 0) {
        emit_row(in_flight);
    }
}

void timeseries::completed(const request_timeline&, const request_metrics& m) {
    ++completed_;
    output_tokens_ += m.output_tokens;
    if (m.ttft >= 0) {
        ttft_.record(m.ttft);
    }
}

void timeseries::emit_row(std::uint64_t in_flight) {
    timeseries_row row{static_cast<double>(index_ * window_ns_) / 1e9, offered_, refused_, completed_, failed_,
                       in_flight, output_tokens_};
    if (ttft_.count() > 0) {
        row.ttft_p50_ms = ns_to_ms(ttft_.percentile(50));
        row.ttft_p99_ms = ns_to_ms(ttft_.percentile(99));
    }
    if (out_.is_open()) {
        char line[256];
        const double rss = rss_mb();
        char p50[32] = "";
        char p99[32] = "";
        char mem[32] = "";
        if (row.ttft_p50_ms >= 0) {
            std::snprintf(p50, sizeof p50, "%.3f", row.ttft_p50_ms);
            std::snprintf(p99, sizeof p99, "%.3f", row.ttft_p99_ms);
        }
        if (rss >= 0) {
            std::snprintf(mem, sizeof mem, "%.1f", rss);
        }
        std::snprintf(line, sizeof line,
                      "%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%s,%s,%s\n",
                      row.t_s, row.offered, row.refused, row.completed, row.failed, row.in_flight, row.output_tokens,
                      p50, p99, mem);
        out_ << line;
    }
    if (recent_.size() == recent_rows) recent_.pop_front();
    recent_.push_back(row);
    offered_ = refused_ = completed_ = failed_ = 0;
    output_tokens_ = 0;
    ttft_.reset();
}

void timeseries::flush() {
    if (out_.is_open()) {
        out_.flush();
    }
}

void timeseries::check() {
    if (!out_.is_open()) {
        return;
    }
    out_.flush();
    if (!out_) {
        throw std::runtime_error("writing " + path_ + " failed");
    }
}

void timeseries::close() {
    if (out_.is_open()) {
        out_.close();
    }
}

}  // namespace openloop
