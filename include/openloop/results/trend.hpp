#pragma once
// Whether a soak's series drifts: the statistics behind its verdicts. Pure:
// a series of (hours, value) points in, numbers and one line of text out.
//
// Slope: Theil-Sen (the median of the pairwise slopes) with Sen's confidence
// interval, the ranks N/2 -+ z sqrt(Var S)/2 among the N sorted slopes, Var S
// being Kendall's with the correction for tied times (Sen 1968, eq. 2.6;
// values tied at the interval's ends are generally untied once the slope is
// taken off, so value ties do not enter it). The interval assumes independent
// residuals: a strongly autocorrelated series gets one too narrow, which the
// materiality rule (below) guards against.
//
// Growth or decline needs both: the interval excludes zero, and the change
// over the observed span (slope x span) reaches max(min_change, min_change_
// fraction x |median level|). A noise-free flat series with a slope of
// +0.001 ms/h has an interval that excludes zero but changes nothing worth
// the name: no_change.
//
// Step: Pettitt's rank test for one change in level, p ~= 2 exp(-6K^2 /
// (n^3 + n^2)). A ramp is also "significant" to Pettitt, so a step is named
// only when it explains the series clearly better than the Theil-Sen line:
// the mean absolute residual around the two medians (before, after) must be
// below step_fit_ratio x the line's. A step must also be material: |after -
// before| >= max(min_step, min_step_fraction x |before|). A step may leave a
// positive slope behind; the series' verdict then names the step.
//
// Beyond max_points the series is thinned to max_points points evenly spaced
// in index (the first and last kept): Theil-Sen is O(n^2) in time and memory
// (4000 points: 8 M slopes), and a thinned series still estimates the same
// slope, with an honestly wider interval.

#include <cstddef>
#include <span>
#include <string>

namespace openloop {

struct trend_point {
    double t_hours = 0;
    double value = 0;  // NaN: missing (skipped)
};

struct trend_options {
    double confidence = 0.95;  // two-sided, of the slope's interval
    std::size_t min_points = 6;
    std::size_t max_points = 4000;
    double min_change = 0;              // units over the span: smaller is no change
    double min_change_fraction = 0.05;  // ... or this share of the median level, the larger
    bool check_step = true;
    double step_alpha = 0.01;
    double min_step = 0;                // units
    double min_step_fraction = 0.10;    // of the level before
    double step_fit_ratio = 0.8;        // the step fit's residual below this share of the line's
};

enum class trend_kind { insufficient, no_change, growth, decline };

struct slope_estimate {
    trend_kind kind = trend_kind::insufficient;
    std::string reason;   // why insufficient
    std::size_t n = 0;    // points used (after skipping NaN and thinning)
    std::size_t skipped = 0;  // NaN values
    bool thinned = false;
    double slope = 0;     // units per hour
    double lower = 0;     // the interval, units per hour
    double upper = 0;
    double half_width = 0;  // (upper - lower) / 2: the "±" of no_change
    double intercept = 0;   // units at t = 0 h
    double span_hours = 0;
    double median = 0;      // level
    double change = 0;      // slope x span
    double threshold = 0;   // the change that counts as material
};

struct change_point {
    bool tested = false;  // enough points to look
    bool found = false;   // significant, material and better than a line
    std::size_t index = 0;  // the first point after the step, in the caller's series (NaN included)
    double t_hours = 0;     // ... and its time
    double before = 0;      // median level before the step
    double after = 0;       // ... and from it on
    double relative = 0;    // (after - before) / |before|; 0 when before is 0
    double p = 1;           // Pettitt's approximate p-value
    double step_residual = 0;  // mean absolute residual around the two medians
    double line_residual = 0;  // ... around the Theil-Sen line
};

enum class series_kind { insufficient, no_change, growth, decline, step_up, step_down };

struct series_trend {
    series_kind kind = series_kind::insufficient;
    slope_estimate slope;
    change_point step;
    std::string text;  // "growth: +412 MiB/h (95 % CI 380..440)", "step up at 1.52 h: 48.0 → 96.1 ms (+100 %)"
};

// The slope alone.
slope_estimate estimate_slope(std::span<const trend_point> points, const trend_options& options = {});

// The slope, the step check and the verdict in words; unit names the values
// ("MiB", "ms", "req/s", "%"). Throws std::invalid_argument for a confidence
// outside (0, 1), min_points < 3 or max_points < min_points.
series_trend judge_series(std::span<const trend_point> points, const std::string& unit,
                          const trend_options& options = {});

// v at three significant digits, integers kept whole ("412", "3.10", "0.00123", "4120").
std::string sig3(double v);

const char* to_string(series_kind k);

}  // namespace openloop
