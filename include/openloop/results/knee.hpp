#pragma once
// The analysis behind `openloop sweep`: how sure a stage's percentile is,
// where a rate curve saturates, the highest rate that meets the SLOs, and which
// rate the automatic sweep tries next. Pure functions of numbers: no clocks,
// no sockets. Stage indices are 0-based positions in the rate-ordered curve.

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

// ---- percentile confidence intervals ---------------------------------------

// Ranks (1-based, in the sorted sample) bracketing the p-th percentile.
// Distribution-free: the count of samples at or below the true quantile q_p is
// Binomial(n, p/100), so P(X_(lo) <= q_p <= X_(hi)) = P(lo <= B <= hi - 1),
// exact for continuous distributions.
struct rank_interval {
    bool sufficient = false;  // false: n is too small to bracket q_p at this confidence
    std::uint64_t lo = 0;
    std::uint64_t hi = 0;
    double coverage = 0;  // the exact probability above, >= the confidence asked for
};

// Equal tails: lo is the highest rank with P(B < lo) <= (1 - confidence) / 2,
// hi the lowest with P(B >= hi) <= (1 - confidence) / 2, from Boost.Math's
// binomial CDF (incomplete beta, accurate for any n; a binary search keeps it
// O(log n)). Insufficient when either rank would fall outside 1 … n (e.g. p99
// from fewer than 368 samples at 95 %). Throws std::invalid_argument unless
// 0 < pct < 100 and 0 < confidence < 1.
rank_interval percentile_ci(std::uint64_t n, double pct, double confidence = 0.95);

struct value_interval {
    bool sufficient = false;
    double lo = 0;
    double hi = 0;
    double coverage = 0;
};

// The interval's ranks as values, through any nearest-rank percentile
// function, e.g. [&](double p) { return h.percentile(p) / 1e6; } for a
// histogram of nanoseconds. Insufficient ranks give an insufficient interval
// without calling percentile.
value_interval ci_values(const rank_interval& ranks, std::uint64_t n,
                         const std::function<double(double pct)>& percentile);

// ---- saturation knee ---------------------------------------------------------

// One sweep stage. Stages are given in strictly ascending offered rate.
struct stage_point {
    double offered_rate = 0;   // req/s the schedule sent at
    double achieved_rate = 0;  // req/s completed
    double latency_ms = 0;     // the latency the knee is judged on (e.g. E2E or TTFT p50/p99)
    std::size_t label = 0;     // the stage number explanations name (the order it ran in)
};

struct knee {
    bool found = false;
    // The curve had broken already at its first stage: the knee lies below
    // the lowest rate swept (found stays false; sweep lower).
    bool below_range = false;
    double rate = 0;               // offered rate of `stage`, the last stage before the break
    double interpolated_rate = 0;  // where the criterion crosses between `stage` and `break_stage`
    std::size_t stage = 0;
    std::size_t break_stage = 0;   // the first stage past the knee
    std::string method;            // "queue_growth", "kneedle" or (closed loop) "throughput_plateau"
    std::string explanation;       // one line with the numbers, found or not
};

// Kneedle (Satopää et al., ICDCS-W 2011) on latency vs offered rate: both
// axes normalised to [0, 1], difference curve d = x - y (the increasing,
// concave-up curve's distance below the chord), knee at the first local
// maximum of d after which d drops below d_max - S / (stages - 1) before the
// next local maximum. No smoothing. Needs 3 stages; flat (a latency range
// under min_rise x its minimum, so noise is no bend), linear or
// non-increasing curves report no knee.
knee kneedle_knee(const std::vector<stage_point>& curve, double sensitivity = 1.0, double min_rise = 0.5);

// ---- SLO knee ----------------------------------------------------------------

struct slo_knee {
    bool found = false;  // false when the lowest stage already fails
    double rate = 0;     // highest offered rate with it and every lower stage passing
    std::size_t stage = 0;
    // Stages above the first failure that pass again: noise or a server that
    // recovered; the knee ignores them, the warning names them.
    std::vector<std::size_t> non_monotonic;
    std::string warning;  // empty when monotonic
    std::string explanation;
};

// How one stage stands against one latency SLO given its percentile's
// confidence interval. Ordered worst first: combine several SLOs with std::min.
enum class slo_status { fail, marginal, pass };

// pass: the CI upper bound is <= limit (holds with confidence); marginal: only
// the point estimate is (or the CI was insufficient, so the bound is unknown);
// fail: the point estimate exceeds the limit.
slo_status classify_slo(double point, std::optional<double> upper, double limit);

struct confident_slo_knee {
    slo_knee confident;  // every stage up to it passes with confidence
    slo_knee point;      // every stage up to it passes at least marginally
};

// status[i]: how the stage at offered_rates[i] (ascending) stands against
// every SLO. Throws std::invalid_argument when the sizes differ or the rates
// do not ascend.
confident_slo_knee find_confident_slo_knee(const std::vector<double>& offered_rates,
                                           const std::vector<slo_status>& status);

// ---- automatic sweep ---------------------------------------------------------

struct planner_options {
    double start_rate = 1.0;
    double factor = 2.0;         // ramp step while stages are good, > 1
    double precision = 0.05;     // stop when (bad - good) / good <= this
    double min_rate = 1e-3;      // give up searching downward below this
    double max_rate = 1e6;       // never propose above this
    std::size_t max_stages = 64;  // hard stop
};

// Ramp, then bisect: start at start_rate; multiply by factor while stages are
// good; once one is bad, bisect (geometric mean, since precision is relative)
// between the highest good and the lowest bad rate. A bad first stage ramps
// down by the factor instead. What "good" means (SLOs hold, throughput
// follows) is the caller's. Every proposal lies strictly between the highest
// good and the lowest bad rate tested, so no rate is proposed twice.
class rate_planner {
public:
    // Throws std::invalid_argument on options outside their ranges.
    explicit rate_planner(planner_options options = {});

    // The rate to run next; empty when done.
    std::optional<double> next_rate() const { return next_; }
    // The verdict on the stage at next_rate(); throws std::logic_error when done.
    void record(bool good);

    bool done() const { return !next_.has_value(); }
    std::optional<double> highest_good() const { return good_; }
    std::optional<double> lowest_bad() const { return bad_; }
    std::size_t stages() const { return stages_; }
    // Why the planner stopped, one line; empty while running.
    const std::string& reason() const { return reason_; }

private:
    void stop(std::string reason);

    planner_options options_;
    std::optional<double> good_;
    std::optional<double> bad_;
    std::optional<double> next_;
    std::size_t stages_ = 0;
    std::string reason_;
};

}  // namespace openloop
