#include <boost/test/unit_test.hpp>

#include "openloop/results/trend.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_trend)

using namespace openloop;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// n windows one minute apart: level + slope x t + normal noise.
std::vector<trend_point> line(std::size_t n, double level, double slope, double noise, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> e(0, noise > 0 ? noise : 1);
    std::vector<trend_point> v(n);
    for (std::size_t i = 0; i < n; ++i) {
        const double t = static_cast<double>(i) / 60;
        v[i] = {t, level + slope * t + (noise > 0 ? e(rng) : 0)};
    }
    return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_noise_free_line_has_its_exact_slope) {
    const auto v = line(120, 500, 412, 0, 0);
    const auto s = estimate_slope(v);
    BOOST_TEST(s.slope == 412.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.lower == 412.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.upper == 412.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.intercept == 500.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.n == 120u);
    BOOST_TEST(s.span_hours == 119.0 / 60, boost::test_tools::tolerance(1e-12));
    BOOST_TEST((s.kind == trend_kind::growth));
    const auto r = judge_series(v, "MiB");
    BOOST_TEST((r.kind == series_kind::growth));
    BOOST_TEST(!r.step.found);  // a line is not a step
    BOOST_TEST(r.text == "growth: +412 MiB/h (95 % CI 412..412)", r.text);
    const auto down = judge_series(line(120, 500, -30, 0, 0), "req/s");
    BOOST_TEST((down.kind == series_kind::decline));
    BOOST_TEST(down.text == "decline: -30.0 req/s/h (95 % CI -30.0..-30.0)", down.text);
}

BOOST_AUTO_TEST_CASE(a_unitless_signal_reads_without_a_stray_blank) {
    const auto r = judge_series(line(120, 5, 3, 0, 0), "");
    BOOST_TEST(r.text == "growth: +3.00/h (95 % CI 3.00..3.00)", r.text);
}

BOOST_AUTO_TEST_CASE(the_interval_covers_the_true_slope_of_noisy_lines) {
    int covered = 0, growth = 0;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        const auto s = estimate_slope(line(60, 1000, 100, 20, seed));
        covered += s.lower <= 100 && 100 <= s.upper;
        growth += s.kind == trend_kind::growth;
        BOOST_TEST(s.lower < s.slope);
        BOOST_TEST(s.slope < s.upper);
    }
    BOOST_TEST(covered >= 180, covered << " of 200");  // 95 % nominal
    BOOST_TEST(covered <= 199, covered << " of 200");  // an interval that covers always is too wide to mean 95 %
    BOOST_TEST(growth >= 190, growth << " of 200");
}

BOOST_AUTO_TEST_CASE(a_flat_noisy_series_does_not_change) {
    int changed = 0, steps = 0;
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
        const auto r = judge_series(line(120, 48, 0, 2, 1000 + seed), "ms");
        changed += r.slope.kind != trend_kind::no_change;
        steps += r.step.found;
    }
    BOOST_TEST(changed <= 10, changed << " of 200");
    BOOST_TEST(steps == 0);  // a 10 % step is far outside a 4 % noise
    const auto r = judge_series(line(120, 48, 0, 2, 7), "ms");
    BOOST_TEST((r.kind == series_kind::no_change));
    BOOST_TEST(r.slope.half_width > 0);
    BOOST_TEST(contains(r.text, "no significant change (±"), r.text);
    BOOST_TEST(contains(r.text, " ms/h)"), r.text);
}

BOOST_AUTO_TEST_CASE(a_tiny_noise_free_slope_is_not_growth) {
    // +0.001 ms/h on 48 ms over two hours: the interval excludes zero, the change is nothing.
    const auto r = judge_series(line(120, 48, 0.001, 0, 0), "ms");
    BOOST_TEST(r.slope.lower > 0);
    BOOST_TEST((r.kind == series_kind::no_change));
    BOOST_TEST(contains(r.text, "no material change (+0.00100 ms/h"), r.text);
    // The caller's own floor in units applies the same way.
    trend_options o;
    o.min_change_fraction = 0;
    o.min_change = 1;
    BOOST_TEST((judge_series(line(120, 48, 0.1, 0, 0), "ms", o).kind == series_kind::no_change));
    BOOST_TEST((judge_series(line(120, 48, 1, 0, 0), "ms", o).kind == series_kind::growth));
}

BOOST_AUTO_TEST_CASE(a_step_is_a_change_point_not_growth) {
    // 48 ms, then 96 ms from 1.52 h (window 91 of 120).
    std::mt19937_64 rng(5);
    std::normal_distribution<double> e(0, 1.5);
    std::vector<trend_point> v(120);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const double t = static_cast<double>(i) / 60;
        v[i] = {t, (i < 91 ? 48.0 : 96.0) + e(rng)};
    }
    const auto r = judge_series(v, "ms");
    BOOST_TEST(r.step.tested);
    BOOST_TEST(r.step.found);
    BOOST_TEST(r.step.index >= 89u);
    BOOST_TEST(r.step.index <= 93u);
    BOOST_TEST(r.step.p < 1e-6);
    BOOST_TEST(r.step.before == 48.0, boost::test_tools::tolerance(0.02));
    BOOST_TEST(r.step.after == 96.0, boost::test_tools::tolerance(0.02));
    BOOST_TEST(r.step.step_residual < 0.5 * r.step.line_residual);
    BOOST_TEST((r.kind == series_kind::step_up));  // the slope is positive too; the verdict names the step
    BOOST_TEST(contains(r.text, "step up at 1.5"), r.text);
    BOOST_TEST(contains(r.text, " ms (+1"), r.text);
    // Downwards, and with the exact numbers of a noise-free step.
    std::vector<trend_point> down(60);
    for (std::size_t i = 0; i < down.size(); ++i) down[i] = {static_cast<double>(i) / 60, i < 30 ? 200.0 : 100.0};
    const auto d = judge_series(down, "req/s");
    BOOST_TEST((d.kind == series_kind::step_down));
    BOOST_TEST(d.step.index == 30u);
    BOOST_TEST(d.text == "step down at 0.500 h: 200 → 100 req/s (-50.0 %)", d.text);
}

BOOST_AUTO_TEST_CASE(a_ramp_is_a_trend_not_a_change_point) {
    int covered = 0;
    for (std::uint64_t seed = 0; seed < 50; ++seed) {
        // 48 → 96 ms over two hours: Pettitt alone would call it a step.
        const auto r = judge_series(line(120, 48, 24, 1.5, 2000 + seed), "ms");
        BOOST_TEST(r.step.p < 0.01);
        BOOST_TEST(!r.step.found, "seed " << seed);
        BOOST_TEST((r.kind == series_kind::growth), "seed " << seed);
        covered += r.slope.lower <= 24 && 24 <= r.slope.upper;
    }
    BOOST_TEST(covered >= 44, covered << " of 50");
    const auto clean = judge_series(line(120, 48, 24, 0, 0), "ms");
    BOOST_TEST(!clean.step.found);
    BOOST_TEST(clean.step.line_residual < 1e-9);
}

BOOST_AUTO_TEST_CASE(spikes_do_not_move_the_slope) {
    auto v = line(120, 50, 10, 1, 9);
    const double clean = estimate_slope(v).slope;
    for (const std::size_t i : {10, 40, 41, 100, 115}) v[i].value *= 100;
    const auto s = estimate_slope(v);
    BOOST_TEST(std::fabs(s.slope - clean) < 1.0, s.slope << " vs " << clean);
    BOOST_TEST(std::fabs(s.slope - 10) < 2.0);
    BOOST_TEST(s.median < 70);  // 50 → 70 over two hours: the spikes do not lift the level
}

BOOST_AUTO_TEST_CASE(tied_values_and_times) {
    // Memory in whole pages: a flat series, nearly all values equal.
    std::vector<trend_point> pages(100);
    for (std::size_t i = 0; i < pages.size(); ++i) {
        pages[i] = {static_cast<double>(i) / 60, i % 17 == 0 ? 1004.0 : 1000.0};
    }
    const auto flat = judge_series(pages, "MiB");
    BOOST_TEST(flat.slope.slope == 0.0);
    BOOST_TEST((flat.kind == series_kind::no_change));
    BOOST_TEST(flat.text == "no significant change (±0 MiB/h)", flat.text);
    // Two values per time (two scrapes per window): slopes between them are
    // skipped, and the tie correction narrows Var S but keeps the interval's order.
    std::vector<trend_point> twice;
    for (std::size_t i = 0; i < 40; ++i) {
        const double t = static_cast<double>(i / 2) / 60;
        twice.push_back({t, 10 + 60 * t + (i % 2 ? 0.5 : -0.5)});
    }
    const auto s = estimate_slope(twice);
    BOOST_TEST((s.kind == trend_kind::growth));
    BOOST_TEST(s.slope == 60.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.lower <= 60);
    BOOST_TEST(s.upper >= 60);
    BOOST_TEST(s.n == 40u);
}

BOOST_AUTO_TEST_CASE(too_few_points_are_insufficient) {
    const auto r = judge_series(line(5, 10, 100, 0, 0), "MiB");
    BOOST_TEST((r.kind == series_kind::insufficient));
    BOOST_TEST(!r.step.tested);
    BOOST_TEST(r.text == "insufficient data: 5 points, at least 6 needed", r.text);
    std::vector<trend_point> one_time(10, trend_point{1.0, 3.0});
    BOOST_TEST(judge_series(one_time, "ms").text == "insufficient data: every point at one time");
    BOOST_TEST(judge_series(std::vector<trend_point>{}, "ms").text == "insufficient data: no values");
}

BOOST_AUTO_TEST_CASE(missing_values_are_skipped) {
    auto v = line(30, 100, 50, 0, 0);
    for (const std::size_t i : {0, 3, 17}) v[i].value = std::nan("");
    const auto s = estimate_slope(v);
    BOOST_TEST(s.n == 27u);
    BOOST_TEST(s.skipped == 3u);
    BOOST_TEST(s.slope == 50.0, boost::test_tools::tolerance(1e-9));
    // The step's index counts the caller's points, missing ones included.
    std::vector<trend_point> step(40);
    for (std::size_t i = 0; i < step.size(); ++i) step[i] = {static_cast<double>(i) / 60, i < 25 ? 10.0 : 20.0};
    step[2].value = std::nan("");
    step[5].value = std::nan("");
    const auto r = judge_series(step, "ms");
    BOOST_TEST(r.step.found);
    BOOST_TEST(r.step.index == 25u);
    BOOST_TEST(r.step.t_hours == 25.0 / 60, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(long_series_are_thinned) {
    // 8 h of 5 s windows: 5760 points, thinned to 4000.
    std::vector<trend_point> v(5760);
    for (std::size_t i = 0; i < v.size(); ++i) {
        const double t = static_cast<double>(i) * 5 / 3600;
        v[i] = {t, 2048 + 3 * t};
    }
    const auto s = estimate_slope(v);
    BOOST_TEST(s.thinned);
    BOOST_TEST(s.n == 4000u);
    BOOST_TEST(s.span_hours == v.back().t_hours, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.slope == 3.0, boost::test_tools::tolerance(1e-6));
}

BOOST_AUTO_TEST_CASE(numbers_have_three_significant_digits) {
    BOOST_TEST(sig3(412.4) == "412");
    BOOST_TEST(sig3(3.1) == "3.10");
    BOOST_TEST(sig3(48) == "48.0");
    BOOST_TEST(sig3(96.14) == "96.1");
    BOOST_TEST(sig3(9.996) == "10.0");
    BOOST_TEST(sig3(0.0012345) == "0.00123");
    BOOST_TEST(sig3(-1.52) == "-1.52");
    BOOST_TEST(sig3(4123) == "4120");
    BOOST_TEST(sig3(0) == "0");
}

BOOST_AUTO_TEST_CASE(rejects_bad_options) {
    const auto v = line(10, 1, 1, 0, 0);
    trend_options o;
    o.confidence = 1;
    BOOST_CHECK_THROW(judge_series(v, "ms", o), std::invalid_argument);
    o = {};
    o.min_points = 2;
    BOOST_CHECK_THROW(estimate_slope(v, o), std::invalid_argument);
    o = {};
    o.max_points = 5;
    BOOST_CHECK_THROW(estimate_slope(v, o), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
