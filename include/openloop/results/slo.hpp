#pragma once
// Service-level objectives and the sweep's list flags, as pure parsers: what
// `--slo`, `--rates`, `--precision` and `--concurrency` mean, and whether one
// stage's summary meets an SLO. No clocks, no I/O.

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// One objective: `<metric>_<stat>=<duration>` or `error_rate=<rate>`.
struct slo {
    std::string metric;  // ttft, tpot, itl, icl, e2e, lag, or error_rate
    std::string stat;    // p50, p90, p95, p99, p99.9, mean, max; empty for error_rate
    double limit = 0;    // milliseconds; a fraction (0.001 = 0.1 %) for error_rate
    std::string text;    // the spec as written, for messages
};

// Parses one spec: `ttft_p99=1s`, `itl_p99=100ms`, `e2e_p95=10s` (e2el is an
// alias of e2e), `tpot_mean=50ms`, `lag_p99.9=500us`, `error_rate=0.1%` or
// `error_rate=0.001`. Statistics: p50 (or median), p90, p95, p99, p99.9 (or
// p999), mean, max. Durations need a unit: us, ms, s or m. Throws
// std::invalid_argument naming the spec and the accepted syntax.
slo parse_slo(std::string_view spec);

// Several specs, each possibly a comma-separated list (`--slo ttft_p99=1s,itl_p99=50ms`
// or the flag repeated). Throws like parse_slo, and on the same metric and
// statistic given twice (which limit would apply is not obvious).
std::vector<slo> parse_slos(const std::vector<std::string>& specs);

// The summary.json key holding what s limits: `p99_ttft_ms`, `median_ttft_ms`
// for p50 (vLLM's name), `p99.9_itl_ms`, `mean_tpot_ms`, `max_e2el_ms` (e2e is
// e2el there), and `error_rate`.
std::string summary_key(const slo& s);

struct slo_check {
    bool pass = false;
    // What the stage measured; empty when the summary has no number for the
    // key (e.g. no request produced two tokens, so no TPOT), which fails:
    // an SLO that cannot be verified does not hold.
    std::optional<double> observed;
};

// Passes when observed <= limit; lookup(summary_key(s)) gives what was observed.
slo_check check_slo(const slo& s, const std::function<std::optional<double>(std::string_view key)>& lookup);

// `--rates`: an explicit ascending list `1,2,4,8`; a geometric ladder
// `0.5:64:x2` (start, end, factor > 1); an arithmetic one `1:10:+1` (start,
// end, step > 0); or `auto` (the bisection planner picks). Ladders include the
// end when a step lands within 1e-9 (relative) of it, and stop at 10000 rates.
struct rate_list {
    bool automatic = false;
    std::vector<double> rates;  // req/s, strictly ascending; empty when automatic
};
rate_list parse_rates(std::string_view spec);

// `--precision 5%` or `0.05`: a fraction in (0, 1).
double parse_precision(std::string_view spec);

// `--concurrency 1,2,4,8`: positive integers, strictly ascending.
std::vector<int> parse_concurrency_list(std::string_view spec);

}  // namespace openloop
