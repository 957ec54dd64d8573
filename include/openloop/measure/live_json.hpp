#pragma once
// The live page's view of a run (GET /live.json of --metrics-listen): what
// the run is doing (a sweep's stage), its counts so far, the last closed
// window's latencies (a soak's window) and the latest per-second rows of
// timeseries.csv, which the page draws as they grow. Pure: the reporter
// formats it once a second, beside the Prometheus text.

#include "openloop/measure/metrics_export.hpp"
#include "openloop/measure/timeseries.hpp"

#include <deque>
#include <string>
#include <string_view>

namespace openloop {

// {"label", "elapsed_s", "started", "completed", "failed", "in_flight",
//  "lost_events", "window": {"seconds", "ttft_p50_ms", "ttft_p99_ms",
//  "e2e_p99_ms", "achieved_rate", "offered_rate"} or null, "series": {"t_s",
//  "offered", "completed", "failed", "in_flight", "ttft_p50_ms",
//  "ttft_p99_ms": arrays, null where a second had no TTFT}}.
std::string format_live_json(const live_view& v, std::string_view label, double elapsed_s,
                             const std::deque<timeseries_row>& rows);

}  // namespace openloop
