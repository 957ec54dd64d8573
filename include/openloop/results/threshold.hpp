#pragma once
// Absolute pass/fail thresholds on one run, as k6 has them: `--threshold
// ttft_p99<1s` passes when the run's TTFT p99 is under a second. Latency
// metrics are FAMILY_STAT (ttft, tpot, itl, e2e, lag, connect, queue; mean, median,
// max, p50, p99.9, ...) against a duration; error_rate against a fraction
// (1%, 0.01); request_throughput, output_throughput and goodput (req/s, tok/s)
// against a number. A metric the run has no sample of fails its threshold: it
// cannot be shown to hold; a TTFA statistic past a request that never answered is
// infinite (run_result.hpp's never_answered) and fails a '<' threshold, saying how many. In a mixed run, `ttft_p99{model=sql-lora}<2s` gates one
// model's figure (k6's tag syntax): its families ttft, tpot, itl, e2e, ttfa, and
// error_rate, request_throughput, output_throughput, goodput. Pure.

#include "openloop/results/run_result.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

struct threshold {
    std::string text;    // as written
    std::string metric;  // e.g. "ttft_p99"
    std::string model;   // {model=NAME}: that model's figure; empty: the run's
    bool below = true;   // '<': the value must stay under limit; '>': above it
    double limit = 0;    // ms for latency, a fraction for error_rate, else as reported
};

// Throws std::invalid_argument naming the threshold and what is wrong.
threshold parse_threshold(std::string_view text);
// The run's value of metric; nullopt without samples.
std::optional<double> threshold_value(const run_result& r, const std::string& metric);
// Why the run fails t; nullopt when it holds.
std::optional<std::string> threshold_failure(const threshold& t, const run_result& r);

}  // namespace openloop
