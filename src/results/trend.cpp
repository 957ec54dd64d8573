#include "openloop/results/trend.hpp"

#include <boost/math/distributions/normal.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>
#include <vector>

namespace openloop {

namespace {

struct kept_point {
    double t;
    double v;
    std::size_t index;  // in the caller's series
};

void check(const trend_options& o) {
    if (!(o.confidence > 0 && o.confidence < 1)) {
        throw std::invalid_argument("trend: the confidence must lie in (0, 1)");
    }
    if (o.min_points < 3 || o.max_points < o.min_points) {
        throw std::invalid_argument("trend: min_points must be at least 3 and max_points at least min_points");
    }
}

// The finite points in time order, thinned to max_points evenly spaced in index.
std::vector<kept_point> keep(std::span<const trend_point> points, const trend_options& o, std::size_t& skipped,
                             bool& thinned) {
    std::vector<kept_point> all;
    all.reserve(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (std::isfinite(points[i].value) && std::isfinite(points[i].t_hours)) {
            all.push_back({points[i].t_hours, points[i].value, i});
        }
    }
    skipped = points.size() - all.size();
    // Pettitt reads the series in time order.
    std::stable_sort(all.begin(), all.end(), [](const kept_point& a, const kept_point& b) { return a.t < b.t; });
    thinned = all.size() > o.max_points;
    if (!thinned) return all;
    std::vector<kept_point> thin(o.max_points);
    const double step = static_cast<double>(all.size() - 1) / static_cast<double>(o.max_points - 1);
    for (std::size_t k = 0; k < o.max_points; ++k) {
        thin[k] = all[static_cast<std::size_t>(std::lround(static_cast<double>(k) * step))];
    }
    return thin;
}

double median_of(std::vector<double> v) {
    if (v.empty()) return 0;
    const auto mid = v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), mid, v.end());
    const double hi = *mid;
    if (v.size() % 2 == 1) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), mid));
}

// Sum over groups of tied times of t(t - 1)(2t + 5); p is in time order.
double time_ties(const std::vector<kept_point>& p) {
    double sum = 0;
    for (std::size_t i = 0; i < p.size();) {
        std::size_t j = i;
        while (j < p.size() && p[j].t == p[i].t) ++j;
        const auto g = static_cast<double>(j - i);
        sum += g * (g - 1) * (2 * g + 5);
        i = j;
    }
    return sum;
}

slope_estimate slope_of(const std::vector<kept_point>& p, const trend_options& o) {
    slope_estimate s;
    s.n = p.size();
    if (p.empty()) {
        s.reason = "no values";
        return s;
    }
    s.span_hours = p.back().t - p.front().t;
    std::vector<double> values(p.size());
    std::transform(p.begin(), p.end(), values.begin(), [](const kept_point& k) { return k.v; });
    s.median = median_of(values);
    if (p.size() < o.min_points) {
        s.reason = std::to_string(p.size()) + " points, at least " + std::to_string(o.min_points) + " needed";
        return s;
    }
    if (!(s.span_hours > 0)) {
        s.reason = "every point at one time";
        return s;
    }
    std::vector<double> slopes;
    slopes.reserve(p.size() * (p.size() - 1) / 2);
    for (std::size_t i = 0; i < p.size(); ++i) {
        for (std::size_t j = i + 1; j < p.size(); ++j) {
            if (p[j].t != p[i].t) slopes.push_back((p[j].v - p[i].v) / (p[j].t - p[i].t));
        }
    }
    const std::size_t big_n = slopes.size();
    const auto nth = [&](std::size_t k) {
        std::nth_element(slopes.begin(), slopes.begin() + static_cast<std::ptrdiff_t>(k), slopes.end());
        return slopes[k];
    };
    // The median first, then each rank within its own side of it.
    const std::size_t mid = big_n / 2;
    s.slope = nth(mid);
    if (big_n % 2 == 0) {
        s.slope = 0.5 * (s.slope + *std::max_element(slopes.begin(), slopes.begin() + static_cast<std::ptrdiff_t>(mid)));
    }
    const auto n = static_cast<double>(p.size());
    const double var_s = (n * (n - 1) * (2 * n + 5) - time_ties(p)) / 18;
    const double z = boost::math::quantile(boost::math::normal(), 0.5 + o.confidence / 2);
    const double c = z * std::sqrt(std::max(0.0, var_s));
    const double nn = static_cast<double>(big_n);
    const auto lower_rank = static_cast<std::size_t>(std::max(0.0, std::round((nn - c) / 2) - 1));
    const auto upper_rank = static_cast<std::size_t>(std::min(nn - 1, std::round((nn + c) / 2)));
    s.lower = nth(std::min(lower_rank, big_n - 1));
    s.upper = nth(upper_rank);
    s.lower = std::min(s.lower, s.slope);  // ranks rounded across the median on tiny series
    s.upper = std::max(s.upper, s.slope);
    s.half_width = (s.upper - s.lower) / 2;
    std::vector<double> offsets(p.size());
    std::transform(p.begin(), p.end(), offsets.begin(), [&](const kept_point& k) { return k.v - s.slope * k.t; });
    s.intercept = median_of(std::move(offsets));
    s.change = s.slope * s.span_hours;
    s.threshold = std::max(o.min_change, o.min_change_fraction * std::fabs(s.median));
    const bool material = std::fabs(s.change) >= s.threshold;
    if (s.lower > 0 && material) {
        s.kind = trend_kind::growth;
    } else if (s.upper < 0 && material) {
        s.kind = trend_kind::decline;
    } else {
        s.kind = trend_kind::no_change;
    }
    return s;
}

// Pettitt's statistic on midranks: U_t = 2 sum_{i<=t} r_i - t(n + 1).
change_point step_of(const std::vector<kept_point>& p, const slope_estimate& line, const trend_options& o) {
    change_point c;
    const std::size_t n = p.size();
    if (n < o.min_points || line.kind == trend_kind::insufficient) return c;
    c.tested = true;
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a].v < p[b].v; });
    std::vector<double> rank(n);
    for (std::size_t i = 0; i < n;) {
        std::size_t j = i;
        while (j < n && p[order[j]].v == p[order[i]].v) ++j;
        const double mid = 0.5 * static_cast<double>(i + j + 1);  // ranks i+1 .. j
        for (std::size_t k = i; k < j; ++k) rank[order[k]] = mid;
        i = j;
    }
    const auto nd = static_cast<double>(n);
    double sum = 0, k_max = 0;
    std::size_t split = 1;  // points [0, split) before the step
    for (std::size_t t = 1; t < n; ++t) {
        sum += rank[t - 1];
        const double u = std::fabs(2 * sum - static_cast<double>(t) * (nd + 1));
        if (u > k_max) {
            k_max = u;
            split = t;
        }
    }
    c.p = std::min(1.0, 2 * std::exp(-6 * k_max * k_max / (nd * nd * nd + nd * nd)));
    c.index = p[split].index;
    c.t_hours = p[split].t;
    std::vector<double> before, after;
    for (std::size_t i = 0; i < n; ++i) (i < split ? before : after).push_back(p[i].v);
    c.before = median_of(before);
    c.after = median_of(after);
    c.relative = c.before != 0 ? (c.after - c.before) / std::fabs(c.before) : 0;
    for (std::size_t i = 0; i < n; ++i) {
        c.step_residual += std::fabs(p[i].v - (i < split ? c.before : c.after));
        c.line_residual += std::fabs(p[i].v - line.intercept - line.slope * p[i].t);
    }
    c.step_residual /= nd;
    c.line_residual /= nd;
    const bool material = std::fabs(c.after - c.before) >= std::max(o.min_step, o.min_step_fraction * std::fabs(c.before));
    const bool better_than_line = c.step_residual < o.step_fit_ratio * c.line_residual;
    c.found = c.p < o.step_alpha && material && c.after != c.before && better_than_line;
    return c;
}

// 95 %, 99.9 %: as many digits as the confidence was given with.
std::string percent(double fraction) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", fraction * 100);
    return buf;
}

std::string signed3(double v) { return (v > 0 ? "+" : "") + sig3(v); }

std::string render(const series_trend& r, const std::string& unit, const trend_options& o) {
    const slope_estimate& s = r.slope;
    // A unitless signal (a count) reads "+3/h" and "3 → 5", without a stray blank.
    const std::string with_unit = unit.empty() ? "" : " " + unit;
    const std::string per_hour = unit.empty() ? "/h" : " " + unit + "/h";
    switch (r.kind) {
        case series_kind::insufficient:
            return "insufficient data: " + s.reason;
        case series_kind::growth:
        case series_kind::decline:
            return std::string(r.kind == series_kind::growth ? "growth: " : "decline: ") + signed3(s.slope) + per_hour +
                   " (" + percent(o.confidence) + " % CI " + sig3(s.lower) + ".." + sig3(s.upper) + ")";
        case series_kind::step_up:
        case series_kind::step_down: {
            const change_point& c = r.step;
            std::string text = std::string(r.kind == series_kind::step_up ? "step up" : "step down") + " at " +
                               sig3(c.t_hours) + " h: " + sig3(c.before) + " → " + sig3(c.after) + with_unit;
            if (c.before != 0) text += " (" + signed3(c.relative * 100) + " %)";
            return text;
        }
        case series_kind::no_change:
            break;
    }
    if (s.lower > 0 || s.upper < 0) {
        // Significant, but the change over the span is below the threshold.
        return "no material change (" + signed3(s.slope) + per_hour + ": " + signed3(s.change) + with_unit +
               " over " + sig3(s.span_hours) + " h)";
    }
    return "no significant change (±" + sig3(s.half_width) + per_hour + ")";
}

}  // namespace

std::string sig3(double v) {
    if (v == 0 || !std::isfinite(v)) return v == 0 ? "0" : std::to_string(v);
    // Round to three significant digits first, so 9.996 reads 10.0, not 10.00.
    const int digits = static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1;
    const double unit = std::pow(10.0, digits - 3);
    const double r = std::round(v / unit) * unit;
    const int rounded_digits = static_cast<int>(std::floor(std::log10(std::fabs(r)))) + 1;
    const int decimals = std::max(0, 3 - rounded_digits);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, r);
    return buf;
}

const char* to_string(series_kind k) {
    switch (k) {
        case series_kind::insufficient: return "insufficient";
        case series_kind::no_change: return "no_change";
        case series_kind::growth: return "growth";
        case series_kind::decline: return "decline";
        case series_kind::step_up: return "step_up";
        case series_kind::step_down: return "step_down";
    }
    return "insufficient";
}

slope_estimate estimate_slope(std::span<const trend_point> points, const trend_options& o) {
    check(o);
    std::size_t skipped = 0;
    bool thinned = false;
    const auto kept = keep(points, o, skipped, thinned);
    slope_estimate s = slope_of(kept, o);
    s.skipped = skipped;
    s.thinned = thinned;
    return s;
}

series_trend judge_series(std::span<const trend_point> points, const std::string& unit, const trend_options& o) {
    check(o);
    series_trend r;
    std::size_t skipped = 0;
    bool thinned = false;
    const auto kept = keep(points, o, skipped, thinned);
    r.slope = slope_of(kept, o);
    r.slope.skipped = skipped;
    r.slope.thinned = thinned;
    if (o.check_step) r.step = step_of(kept, r.slope, o);
    switch (r.slope.kind) {
        case trend_kind::insufficient: r.kind = series_kind::insufficient; break;
        case trend_kind::no_change: r.kind = series_kind::no_change; break;
        case trend_kind::growth: r.kind = series_kind::growth; break;
        case trend_kind::decline: r.kind = series_kind::decline; break;
    }
    if (r.step.found) r.kind = r.step.after > r.step.before ? series_kind::step_up : series_kind::step_down;
    r.text = render(r, unit, o);
    return r;
}

}  // namespace openloop
