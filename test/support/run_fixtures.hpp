#pragma once
// Hand-made run statistics for the results tests: a small healthy open-loop
// run whose every figure is easy to check by hand.

#include "openloop/measure/request_metrics.hpp"
#include "openloop/measure/run_stats.hpp"
#include "openloop/results/run_context.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <string_view>

namespace run_fixtures {

inline constexpr std::int64_t ms_ns = 1'000'000;
inline constexpr std::int64_t base = 5'000'000 * ms_ns;

// 10 requests over exactly 2 s, 1000 input and 50 output tokens each (from
// usage), TTFT 100 ms, TPOT 20 ms, lag 0.1 ms.
inline openloop::run_stats healthy() {
    openloop::run_stats s;
    for (int i = 0; i < 10; ++i) {
        s.ttft.record(100 * ms_ns);
        s.tpot.record(20 * ms_ns);
        s.e2e.record(1080 * ms_ns);
        s.lag.record(ms_ns / 10);
        s.by_input[2].ttft.record(100 * ms_ns);
        s.by_input[2].tpot.record(20 * ms_ns);
        s.by_input[2].e2e.record(1080 * ms_ns);
        for (int t = 0; t < 49; ++t) {
            s.itl.record(20 * ms_ns);
            s.icl.record(20 * ms_ns);
        }
    }
    s.by_input[2].completed = 10;
    s.started = 10;
    s.completed = 10;
    s.good = 8;
    s.total_input_tokens = 10'000;
    s.total_output_tokens = 500;
    s.output_from_usage = 10;
    s.itl_token_samples = 490;
    s.first_intended_ns = base;
    s.last_end_ns = base + 2000 * ms_ns;
    s.max_inflight = 4;
    return s;
}

// A thinking model's run, each request through the reporter's own rules: `answered` requests
// thought (one chunk at 50 ms) and answered at 100 ms; `never` spent max_tokens thinking and
// never answered. 100 ms apart, 8 output tokens each.
inline openloop::run_stats thinking_run(int answered, int never) {
    using namespace openloop;
    run_stats s;
    const int n = answered + never;
    for (int i = 0; i < n; ++i) {
        request_timeline r;
        r.intended = base + i * 100 * ms_ns;
        r.sent = r.intended;
        r.max_tokens = 8;
        r.add_chunk(r.intended + 50 * ms_ns, 4, true);
        r.add_chunk(r.intended + 100 * ms_ns, 4, i >= answered);
        const stream_usage usage{8, 100, -1, false, -1};
        const request_metrics m = measure_request(r, usage);
        ++s.started;
        record_completed(s, r, m, usage, true);
    }
    s.first_intended_ns = base;
    s.last_end_ns = base + n * 100 * ms_ns;
    return s;
}

inline openloop::run_context open_loop() {
    openloop::run_context c;
    c.target = "http://127.0.0.1:8000/v1/chat/completions";
    c.request_rate = 5;
    c.config = boost::json::object{{"rate", 5}, {"api_key", "[redacted]"}};
    c.environment = boost::json::object{{"host", "test"}};
    return c;
}

inline double num(const boost::json::object& o, std::string_view key) { return o.at(key).to_number<double>(); }

}  // namespace run_fixtures
