#include "openloop/measure/progress_line.hpp"

#include <algorithm>
#include <cinttypes>

namespace openloop {

progress_line::progress_line(std::chrono::milliseconds interval, std::FILE* out)
    : interval_ns_(std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(interval).count())),
      out_(out) {}

bool progress_line::due(std::int64_t now_ns) {
    if (next_ns_ == 0) {
        next_ns_ = now_ns + interval_ns_;
        last_ns_ = now_ns;
        return false;
    }
    return now_ns >= next_ns_;
}

std::string progress_line::text(std::int64_t now_ns, const progress_figures& f) {
    const double since_last = static_cast<double>(now_ns - last_ns_) / 1e9;
    const double rate = since_last > 0 ? static_cast<double>(f.completed - last_completed_) / since_last : 0.0;
    last_ns_ = now_ns;
    last_completed_ = f.completed;
    next_ns_ = now_ns + interval_ns_;
    // Trailing spaces blank out the rest of a longer previous line.
    char line[256];
    const int n = std::snprintf(line, sizeof line,
                                "\r%8.1f s  sent %" PRIu64 "  in flight %zu  done %" PRIu64 "  errors %" PRIu64
                                "  %.1f req/s  TTFT p50 %.1f ms p99 %.1f ms    ",
                                f.elapsed_s, f.sent, f.in_flight, f.completed, f.failed, rate, f.ttft_p50_ms,
                                f.ttft_p99_ms);
    return std::string(line, static_cast<std::size_t>(std::clamp(n, 0, static_cast<int>(sizeof line) - 1)));
}

void progress_line::print(std::int64_t now_ns, const progress_figures& f) {
    std::fputs(text(now_ns, f).c_str(), out_);
    std::fflush(out_);
    printed_ = true;
}

}  // namespace openloop
