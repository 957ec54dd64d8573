#include "openloop/results/knee.hpp"

#include <boost/math/distributions/binomial.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <utility>

namespace openloop {

namespace {

template <class... Args>
std::string format(const char* pattern, Args... args) {
    char buf[512];
    std::snprintf(buf, sizeof buf, pattern, args...);
    return buf;
}

// The smallest k in [0, n - 1] with pred(k), pred monotone false → true; n when none.
template <class Pred>
std::uint64_t first_true(std::uint64_t n, Pred pred) {
    std::uint64_t lo = 0;
    std::uint64_t hi = n;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (pred(mid)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

void check_curve(const std::vector<stage_point>& curve) {
    for (std::size_t i = 0; i < curve.size(); ++i) {
        const auto& s = curve[i];
        if (!(std::isfinite(s.offered_rate) && s.offered_rate > 0 && std::isfinite(s.achieved_rate) &&
              s.achieved_rate >= 0 && std::isfinite(s.latency_ms) && s.latency_ms >= 0)) {
            throw std::invalid_argument(format(
                "knee: stage %zu needs a positive offered rate and finite, non-negative achieved rate and latency", i));
        }
        if (i > 0 && !(s.offered_rate > curve[i - 1].offered_rate)) {
            throw std::invalid_argument(format("knee: stage %zu: offered rates must be strictly ascending", i));
        }
    }
}

void check_rates(const std::vector<double>& rates, std::size_t verdicts) {
    if (rates.size() != verdicts) {
        throw std::invalid_argument(
            format("slo knee: %zu offered rates but %zu stage verdicts", rates.size(), verdicts));
    }
    for (std::size_t i = 1; i < rates.size(); ++i) {
        if (!(rates[i] > rates[i - 1])) {
            throw std::invalid_argument(format("slo knee: stage %zu: offered rates must be strictly ascending", i));
        }
    }
}

knee not_found(std::string method, std::string explanation) {
    knee k;
    k.method = std::move(method);
    k.explanation = std::move(explanation);
    return k;
}

knee found_at(std::string method, const std::vector<stage_point>& curve, std::size_t stage, double interpolated,
              std::string explanation) {
    knee k;
    k.found = true;
    k.method = std::move(method);
    k.stage = stage;
    k.break_stage = stage + 1;
    k.rate = curve[stage].offered_rate;
    k.interpolated_rate = interpolated;
    k.explanation = std::move(explanation);
    return k;
}

// The knee over a pass/fail sequence (true = good).
slo_knee prefix_knee(const std::vector<double>& rates, const std::vector<bool>& good, const char* what) {
    slo_knee k;
    const auto first_bad = static_cast<std::size_t>(std::find(good.begin(), good.end(), false) - good.begin());
    for (std::size_t i = first_bad + 1; i < good.size(); ++i) {
        if (good[i]) {
            k.non_monotonic.push_back(i);
        }
    }
    if (!k.non_monotonic.empty()) {
        std::string stages;
        for (const auto i : k.non_monotonic) {
            stages += (stages.empty() ? "" : ", ") + format("%.4g", rates[i]);
        }
        k.warning = format("non-monotonic: the stage at %.4g req/s fails but higher stage(s) at %s req/s %s again; the "
                           "knee ignores them",
                           rates[first_bad], stages.c_str(), what);
    }
    if (rates.empty()) {
        k.explanation = "no stages";
    } else if (first_bad == 0) {
        k.explanation = format("the lowest stage (%.4g req/s) already fails: the SLO knee lies below the sweep",
                               rates[0]);
    } else {
        k.found = true;
        k.stage = first_bad - 1;
        k.rate = rates[k.stage];
        k.explanation =
            first_bad == rates.size()
                ? format("every stage %s, up to %.4g req/s (the SLO knee may lie higher)", what, k.rate)
                : format("every stage up to %.4g req/s %s; the stage at %.4g req/s does not", k.rate, what,
                         rates[first_bad]);
    }
    return k;
}

// The percentile whose nearest rank among n samples is `rank` (what
// histogram::percentile takes); 1 <= rank <= n.
double rank_percentile(std::uint64_t rank, std::uint64_t n) {
    return 100.0 * static_cast<double>(rank) / static_cast<double>(n);
}

}  // namespace

rank_interval percentile_ci(std::uint64_t n, double pct, double confidence) {
    if (!(pct > 0 && pct < 100)) {
        throw std::invalid_argument(format("percentile_ci: the percentile must lie in (0, 100), got %g", pct));
    }
    if (!(confidence > 0 && confidence < 1)) {
        throw std::invalid_argument(format("percentile_ci: the confidence must lie in (0, 1), got %g", confidence));
    }
    rank_interval r;
    if (n == 0) {
        return r;
    }
    const boost::math::binomial_distribution<double> b(static_cast<double>(n), pct / 100.0);
    const double tail = (1.0 - confidence) / 2.0;
    const auto below = [&](std::uint64_t k) { return boost::math::cdf(b, static_cast<double>(k)); };
    const auto above = [&](std::uint64_t k) { return boost::math::cdf(boost::math::complement(b, static_cast<double>(k))); };
    // lo - 1 = the largest k with P(B <= k) <= tail; the complement keeps the
    // upper tail accurate where the CDF is within rounding of 1.
    const std::uint64_t k_lo = first_true(n, [&](std::uint64_t k) { return below(k) > tail; });
    const std::uint64_t k_hi = first_true(n, [&](std::uint64_t k) { return above(k) <= tail; });
    if (k_lo == 0 || k_hi == n) {
        return r;
    }
    r.sufficient = true;
    r.lo = k_lo;
    r.hi = k_hi + 1;
    r.coverage = 1.0 - below(r.lo - 1) - above(r.hi - 1);
    return r;
}

value_interval ci_values(const rank_interval& ranks, std::uint64_t n,
                         const std::function<double(double pct)>& percentile) {
    value_interval v;
    if (!ranks.sufficient) {
        return v;
    }
    v.sufficient = true;
    v.lo = percentile(rank_percentile(ranks.lo, n));
    v.hi = percentile(rank_percentile(ranks.hi, n));
    v.coverage = ranks.coverage;
    return v;
}

knee kneedle_knee(const std::vector<stage_point>& curve, double sensitivity, double min_rise) {
    check_curve(curve);
    if (!(sensitivity > 0) || !(min_rise >= 0)) {
        throw std::invalid_argument("kneedle_knee: sensitivity must be positive and min_rise non-negative");
    }
    const std::string method = "kneedle";
    const std::size_t n = curve.size();
    if (n < 3) {
        return not_found(method, format("Kneedle needs at least 3 stages, got %zu", n));
    }
    const auto [lo_it, hi_it] = std::minmax_element(
        curve.begin(), curve.end(), [](const stage_point& a, const stage_point& b) { return a.latency_ms < b.latency_ms; });
    const double y_min = lo_it->latency_ms;
    const double y_max = hi_it->latency_ms;
    if (y_max - y_min <= min_rise * y_min) {
        return not_found(method, format("latency is flat: %.1f … %.1f ms varies by less than %.0f%% of its minimum",
                                        y_min, y_max, min_rise * 100));
    }
    if (!(curve.back().latency_ms > curve.front().latency_ms)) {
        return not_found(method, "latency does not increase with offered rate");
    }
    const double x0 = curve.front().offered_rate;
    const double x_span = curve.back().offered_rate - x0;
    std::vector<double> d(n);
    for (std::size_t i = 0; i < n; ++i) {
        d[i] = (curve[i].offered_rate - x0) / x_span - (curve[i].latency_ms - y_min) / (y_max - y_min);
    }
    // Normalised x runs 0 … 1 over n points: its mean spacing is 1 / (n - 1).
    const double drop = sensitivity / static_cast<double>(n - 1);
    for (std::size_t i = 1; i + 1 < n; ++i) {
        if (!(d[i] > 0 && d[i] > d[i - 1] && d[i] >= d[i + 1])) {
            continue;
        }
        const double threshold = d[i] - drop;
        for (std::size_t j = i + 1; j < n; ++j) {
            if (d[j] < threshold) {
                return found_at(method, curve, i, curve[i].offered_rate,
                                format("latency bend at %.3g req/s (stage %zu, %.1f ms; Kneedle S=%.1f, normalised "
                                       "distance below the chord %.2f)",
                                       curve[i].offered_rate, curve[i].label, curve[i].latency_ms, sensitivity, d[i]));
            }
            if (j + 1 < n && d[j] > d[j - 1] && d[j] >= d[j + 1]) {
                break;  // the next local maximum: this one was not a knee
            }
        }
    }
    return not_found(method, format("Kneedle (S=%.1f): no bend of the latency curve beyond the threshold", sensitivity));
}

slo_status classify_slo(double point, std::optional<double> upper, double limit) {
    if (!(point <= limit)) {
        return slo_status::fail;
    }
    return upper && *upper <= limit ? slo_status::pass : slo_status::marginal;
}

confident_slo_knee find_confident_slo_knee(const std::vector<double>& offered_rates,
                                           const std::vector<slo_status>& status) {
    check_rates(offered_rates, status.size());
    std::vector<bool> confident(status.size());
    std::vector<bool> point(status.size());
    for (std::size_t i = 0; i < status.size(); ++i) {
        confident[i] = status[i] == slo_status::pass;
        point[i] = status[i] != slo_status::fail;
    }
    return {prefix_knee(offered_rates, confident, "pass with confidence"),
            prefix_knee(offered_rates, point, "pass at the point estimate")};
}

rate_planner::rate_planner(planner_options options) : options_(options) {
    const auto& o = options_;
    if (!(o.start_rate > 0 && o.factor > 1 && o.precision > 0 && o.min_rate > 0 && o.min_rate <= o.start_rate &&
          o.start_rate <= o.max_rate && std::isfinite(o.max_rate) && o.max_stages > 0)) {
        throw std::invalid_argument(
            "rate_planner: need 0 < min_rate <= start_rate <= max_rate (finite), factor > 1, precision > 0 and "
            "max_stages > 0");
    }
    next_ = o.start_rate;
}

void rate_planner::stop(std::string reason) {
    next_.reset();
    reason_ = std::move(reason);
}

void rate_planner::record(bool good) {
    if (!next_) {
        throw std::logic_error("rate_planner::record: the planner is done (" + reason_ + ")");
    }
    const double rate = *next_;
    ++stages_;
    (good ? good_ : bad_) = rate;
    if (stages_ >= options_.max_stages) {
        stop(format("stopped after %zu stages (max_stages)", stages_));
    } else if (!good_) {
        const double lower = *bad_ / options_.factor;
        if (lower < options_.min_rate) {
            stop(format("even %.4g req/s is bad; not searching below min_rate %.4g", *bad_, options_.min_rate));
        } else {
            next_ = lower;
        }
    } else if (!bad_) {
        if (*good_ >= options_.max_rate) {
            stop(format("good up to max_rate %.4g req/s", options_.max_rate));
        } else {
            next_ = std::min(*good_ * options_.factor, options_.max_rate);
        }
    } else if ((*bad_ - *good_) / *good_ <= options_.precision) {
        stop(format("converged: good at %.4g, bad at %.4g req/s (within %.3g)", *good_, *bad_, options_.precision));
    } else {
        const double mid = std::sqrt(*good_ * *bad_);
        if (mid > *good_ && mid < *bad_) {
            next_ = mid;
        } else {
            stop(format("good at %.4g and bad at %.4g req/s are as close as doubles get", *good_, *bad_));
        }
    }
}

}  // namespace openloop
