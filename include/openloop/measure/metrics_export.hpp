#pragma once
// openloop's own metrics as Prometheus text (exposition format 0.0.4), for
// --metrics-listen. Pure: the reporter fills a live_view once a second and
// hands the text to metrics_endpoint::publish. Every name is listed in
// docs/metrics.md ("openloop's own metrics") and used by
// tools/grafana/openloop-dashboard.json; all values in base units (seconds,
// bytes, requests per second).

#include "openloop/measure/run_stats.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace openloop {

// The last closed soak window (window_log; without a soak, its 10 s windows).
struct live_window {
    double seconds = 0;  // its length; <= 0: none has closed, and no openloop_window_* is written
    // Percentiles of the requests completed in it, ns; -1: no sample (that gauge is left out).
    std::int64_t ttft_p50 = -1, ttft_p90 = -1, ttft_p99 = -1, itl_p99 = -1, tpot_p99 = -1, e2e_p99 = -1;
    double achieved_rate = 0, offered_rate = 0;  // req/s
};

struct live_view {
    const run_stats* stats = nullptr;  // the measured requests so far; must not be null
    std::uint64_t in_flight = 0;       // measured requests in flight now
    std::uint64_t lost_events = 0;     // dropped by the full ring so far
    live_window window;
    std::int64_t generator_rss_bytes = -1;  // -1: unknown (left out)
    double generator_cpu_seconds = -1;      // user + system; < 0: unknown (left out)
};

// One upper bound of a Prometheus histogram: in ns (what our histograms hold)
// and as the le label it is written with.
struct bucket_bound {
    std::int64_t ns;
    std::string_view le;
};

// The fixed bounds of each exported histogram (documented in docs/metrics.md).
std::span<const bucket_bound> lag_buckets();      // 10 µs … 1 s
std::span<const bucket_bound> request_buckets();  // TTFT, E2E: 1 ms … 300 s
std::span<const bucket_bound> token_buckets();    // ITL, TPOT: 100 µs … 10 s

// The exposition text; throws std::invalid_argument when v.stats is null.
std::string format_live_metrics(const live_view& v);

}  // namespace openloop
