#include <boost/test/unit_test.hpp>

#include "openloop/measure/histogram.hpp"
#include "openloop/results/knee.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_knee)

using namespace openloop;

namespace {

// Uniform in [0, 1) from the 53 high bits: mt19937_64 is specified exactly,
// unlike the standard distributions, so every library draws the same numbers.
double uniform(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1p-53; }

double exponential(std::mt19937_64& rng) { return -std::log1p(-uniform(rng)); }

// Nearest rank, as histogram::percentile defines it, on sorted samples.
double nearest_rank(const std::vector<double>& sorted, double pct) {
    const double r = pct / 100.0 * static_cast<double>(sorted.size());
    const auto rank = std::clamp<std::size_t>(static_cast<std::size_t>(std::ceil(r * (1.0 - 1e-12))), 1, sorted.size());
    return sorted[rank - 1];
}

// Throughput follows offered load up to 10 req/s, then flattens at 10;
// latency rises gently, then like a hockey stick once the queue builds.
double clean_achieved(double rate) { return std::min(rate, 10.0); }
double clean_latency(double rate) { return rate <= 10 ? 200 + 5 * rate : 250 + 400 * (rate - 10); }

// Stages at 1, 2, …, stages req/s; the knee is stage 9 (10 req/s).
std::vector<stage_point> clean_curve(int stages) {
    std::vector<stage_point> curve;
    for (int i = 1; i <= stages; ++i) {
        const double r = i;
        curve.push_back({r, clean_achieved(r), clean_latency(r)});
    }
    return curve;
}

constexpr std::size_t true_knee = 9;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_SUITE(confidence_interval)

BOOST_AUTO_TEST_CASE(covers_the_true_p99_of_an_exponential) {
    constexpr std::uint64_t n = 1000;
    constexpr int trials = 2000;
    const double true_p99 = std::log(100.0);  // exponential(1): -ln(1 - 0.99)
    const auto ci = percentile_ci(n, 99);
    BOOST_TEST_REQUIRE(ci.sufficient);
    BOOST_TEST_MESSAGE("p99 of 1000: ranks " << ci.lo << " … " << ci.hi << ", coverage " << ci.coverage);
    BOOST_TEST(ci.lo < 990u);
    BOOST_TEST(ci.hi > 990u);
    BOOST_TEST(ci.hi - ci.lo <= 16u);  // ±2σ of Binomial(1000, 0.99) is ±6.3 ranks
    BOOST_TEST(ci.coverage >= 0.95);
    BOOST_TEST(ci.coverage <= 0.98);

    std::mt19937_64 rng(20240611);
    std::vector<double> sample(n);
    int covered = 0;
    double relative_width = 0;
    for (int t = 0; t < trials; ++t) {
        for (auto& x : sample) {
            x = exponential(rng);
        }
        std::sort(sample.begin(), sample.end());
        const auto values = ci_values(ci, n, [&](double pct) { return nearest_rank(sample, pct); });
        BOOST_TEST_REQUIRE(values.lo == sample[ci.lo - 1]);
        BOOST_TEST_REQUIRE(values.hi == sample[ci.hi - 1]);
        covered += values.lo <= true_p99 && true_p99 <= values.hi ? 1 : 0;
        relative_width += (values.hi - values.lo) / true_p99;
    }
    const double rate = static_cast<double>(covered) / trials;
    BOOST_TEST_MESSAGE("covered " << covered << " of " << trials << ", mean width " << relative_width / trials);
    BOOST_TEST(rate >= 0.95);
    // Within 4 standard errors of the exact coverage: the interval is not
    // just wide, it is as wide as the binomial says.
    BOOST_TEST(std::abs(rate - ci.coverage) <= 4 * std::sqrt(ci.coverage * (1 - ci.coverage) / trials));
    BOOST_TEST(relative_width / trials < 0.5);  // ≈ ±20 % of a 4.6 quantile, not the whole tail
}

BOOST_AUTO_TEST_CASE(reads_values_through_a_histogram) {
    std::mt19937_64 rng(7);
    histogram h;
    std::vector<double> sample;
    for (int i = 0; i < 5000; ++i) {
        const auto ns = static_cast<std::int64_t>(exponential(rng) * 1e8);
        h.record(ns);
        sample.push_back(static_cast<double>(ns));
    }
    std::sort(sample.begin(), sample.end());
    const auto ci = percentile_ci(h.count(), 99);
    const auto ms = ci_values(ci, h.count(), [&](double pct) { return static_cast<double>(h.percentile(pct)) / 1e6; });
    BOOST_TEST_REQUIRE(ms.sufficient);
    BOOST_TEST(ms.lo == sample[ci.lo - 1] / 1e6, boost::test_tools::tolerance(1e-3));
    BOOST_TEST(ms.hi == sample[ci.hi - 1] / 1e6, boost::test_tools::tolerance(1e-3));
    BOOST_TEST(ms.lo < static_cast<double>(h.percentile(99)) / 1e6);
    BOOST_TEST(ms.hi > static_cast<double>(h.percentile(99)) / 1e6);
    BOOST_TEST(ms.coverage == ci.coverage);
}

BOOST_AUTO_TEST_CASE(small_samples_are_insufficient) {
    BOOST_TEST(!percentile_ci(0, 50).sufficient);
    BOOST_TEST(!percentile_ci(10, 99).sufficient);
    // The top rank brackets p99 with 97.5 % only once 0.99^n <= 0.025: n >= 368.
    BOOST_TEST(!percentile_ci(367, 99).sufficient);
    BOOST_TEST(percentile_ci(368, 99).sufficient);
    BOOST_TEST(percentile_ci(368, 99).hi == 368u);
    BOOST_TEST(!percentile_ci(367, 1).sufficient);  // the same on the low side
    BOOST_TEST(percentile_ci(368, 1).lo == 1u);

    // The median of 6: min and max with coverage 1 - 2/64 exactly; of 5, not enough.
    BOOST_TEST(!percentile_ci(5, 50).sufficient);
    const auto six = percentile_ci(6, 50);
    BOOST_TEST(six.sufficient);
    BOOST_TEST(six.lo == 1u);
    BOOST_TEST(six.hi == 6u);
    BOOST_TEST(six.coverage == 1 - 2.0 / 64, boost::test_tools::tolerance(1e-12));

    const auto none = ci_values(percentile_ci(10, 99), 10, [](double) -> double {
        throw std::logic_error("must not be called");
    });
    BOOST_TEST(!none.sufficient);
}

BOOST_AUTO_TEST_CASE(huge_samples_match_the_normal_approximation) {
    constexpr double n = 1e9;
    const auto ci = percentile_ci(static_cast<std::uint64_t>(n), 99);
    const double sd = std::sqrt(n * 0.99 * 0.01);
    BOOST_TEST(ci.sufficient);
    BOOST_TEST(std::abs(static_cast<double>(ci.lo) - (0.99 * n - 1.96 * sd)) <= 3);
    BOOST_TEST(std::abs(static_cast<double>(ci.hi) - (0.99 * n + 1.96 * sd)) <= 3);
    BOOST_TEST(ci.coverage >= 0.95);
    BOOST_TEST(ci.coverage < 0.951);
    const auto wide = percentile_ci(static_cast<std::uint64_t>(n), 99, 0.999);
    BOOST_TEST(wide.lo < ci.lo);
    BOOST_TEST(wide.hi > ci.hi);
}

BOOST_AUTO_TEST_CASE(rejects_bad_arguments) {
    BOOST_CHECK_THROW(percentile_ci(100, 0), std::invalid_argument);
    BOOST_CHECK_THROW(percentile_ci(100, 100), std::invalid_argument);
    BOOST_CHECK_THROW(percentile_ci(100, 50, 1.0), std::invalid_argument);
    BOOST_CHECK_THROW(percentile_ci(100, 50, 0.0), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(saturation_knee)

BOOST_AUTO_TEST_CASE(finds_a_clean_knee) {
    auto curve = clean_curve(16);
    for (std::size_t i = 0; i < curve.size(); ++i) curve[i].label = 100 + i;
    const auto bend = kneedle_knee(curve);
    BOOST_TEST(bend.found);
    BOOST_TEST(bend.method == "kneedle");
    BOOST_TEST(bend.stage == true_knee);
    BOOST_TEST(bend.break_stage == true_knee + 1);
    BOOST_TEST(bend.rate == 10.0);
    // Named as a latency bend, by the stage's label (the order it ran in), never as saturation.
    BOOST_TEST(contains(bend.explanation, "latency bend at 10 req/s (stage 109,"), bend.explanation);
    BOOST_TEST(!contains(bend.explanation, "saturat"), bend.explanation);
}

BOOST_AUTO_TEST_CASE(reports_no_knee_without_one) {
    std::vector<stage_point> curve;
    for (int i = 1; i <= 16; ++i) {
        curve.push_back({double(i), double(i), 200});
    }
    const auto flat_bend = kneedle_knee(curve);
    BOOST_TEST(!flat_bend.found);
    BOOST_TEST(contains(flat_bend.explanation, "flat"), flat_bend.explanation);

    // Linear latency (+75 %): no bend for Kneedle.
    for (auto& s : curve) {
        s.latency_ms = 200 + 10 * s.offered_rate;
    }
    const auto linear = kneedle_knee(curve);
    BOOST_TEST(!linear.found);
    BOOST_TEST(contains(linear.explanation, "no bend"), linear.explanation);

    BOOST_TEST(!kneedle_knee(clean_curve(2)).found);
    // A high sensitivity asks for a sharper bend than the clean curve has.
    BOOST_TEST(!kneedle_knee(clean_curve(16), 100).found);
}

BOOST_AUTO_TEST_CASE(survives_noise) {
    // ±5 % multiplicative noise on throughput and latency, several fixed seeds.
    for (const std::uint64_t seed : {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}) {
        std::mt19937_64 rng(seed);
        const auto noise = [&] { return 1 + 0.1 * (uniform(rng) - 0.5); };
        auto curve = clean_curve(16);
        for (auto& s : curve) {
            s.achieved_rate *= noise();
            s.latency_ms *= noise();
        }
        BOOST_TEST_CONTEXT("seed " << seed) {
            const auto bend = kneedle_knee(curve);
            BOOST_TEST_REQUIRE(bend.found);
            BOOST_TEST(std::abs(double(bend.stage) - double(true_knee)) <= 1.0, bend.explanation);
        }
    }
    // Noise on a flat latency is not a bend.
    std::mt19937_64 rng(11);
    std::vector<stage_point> flat;
    for (int i = 1; i <= 16; ++i) {
        flat.push_back({double(i), double(i), 200 * (1 + 0.1 * (uniform(rng) - 0.5))});
    }
    BOOST_TEST(!kneedle_knee(flat).found);
}

BOOST_AUTO_TEST_CASE(rejects_bad_curves) {
    BOOST_CHECK_THROW(kneedle_knee({{2, 2, 100}, {1, 1, 100}}), std::invalid_argument);
    BOOST_CHECK_THROW(kneedle_knee({{1, 1, 100}, {1, 1, 100}}), std::invalid_argument);
    BOOST_CHECK_THROW(kneedle_knee({{0, 0, 100}}), std::invalid_argument);
    BOOST_CHECK_THROW(kneedle_knee({{1, 1, std::nan("")}}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(slo_knee_suite)

namespace {

// Plain pass/fail stages: a pass holds with confidence, so both knees agree.
std::vector<slo_status> point(const std::vector<bool>& pass) {
    std::vector<slo_status> out;
    for (const bool p : pass) out.push_back(p ? slo_status::pass : slo_status::fail);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(highest_rate_whose_prefix_passes) {
    const std::vector<double> rates = {1, 2, 4, 8, 16};
    const auto k = find_confident_slo_knee(rates, point({true, true, false, true, false})).point;
    BOOST_TEST(k.found);
    BOOST_TEST(k.stage == 1u);
    BOOST_TEST(k.rate == 2.0);
    BOOST_TEST(k.non_monotonic == (std::vector<std::size_t>{3}), boost::test_tools::per_element());
    BOOST_TEST(contains(k.warning, "the stage at 4 req/s fails but higher stage(s) at 8 req/s"), k.warning);

    const auto all = find_confident_slo_knee(rates, point({true, true, true, true, true})).point;
    BOOST_TEST(all.found);
    BOOST_TEST(all.rate == 16.0);
    BOOST_TEST(all.warning.empty());
    BOOST_TEST(contains(all.explanation, "may lie higher"), all.explanation);

    const auto none = find_confident_slo_knee(rates, point({false, true, true, true, true})).point;
    BOOST_TEST(!none.found);
    BOOST_TEST(none.non_monotonic.size() == 4u);

    BOOST_CHECK_THROW(find_confident_slo_knee(rates, point({true})), std::invalid_argument);
    BOOST_CHECK_THROW(find_confident_slo_knee({2, 1}, point({true, true})), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(moves_down_as_the_limit_tightens) {
    const auto curve = clean_curve(16);
    std::vector<double> rates;
    for (const auto& s : curve) {
        rates.push_back(s.offered_rate);
    }
    double previous = rates.back() + 1;
    int moves = 0;
    for (double limit = 6000; limit >= 150; limit *= 0.9) {
        std::vector<bool> pass;
        for (const auto& s : curve) {
            pass.push_back(s.latency_ms <= limit);
        }
        const auto k = find_confident_slo_knee(rates, point(pass)).point;
        const double rate = k.found ? k.rate : 0;
        BOOST_TEST_CONTEXT("limit " << limit) {
            BOOST_TEST(rate <= previous);
            BOOST_TEST(k.warning.empty());
        }
        moves += rate < previous ? 1 : 0;
        previous = rate;
    }
    BOOST_TEST(moves >= 5);
    BOOST_TEST(previous == 0.0);  // the last limit is below every stage: no SLO knee at all
}

BOOST_AUTO_TEST_CASE(classifies_with_confidence) {
    BOOST_TEST((classify_slo(90, 95, 100) == slo_status::pass));
    BOOST_TEST((classify_slo(90, 100, 100) == slo_status::pass));
    BOOST_TEST((classify_slo(90, 105, 100) == slo_status::marginal));
    BOOST_TEST((classify_slo(90, std::nullopt, 100) == slo_status::marginal));
    BOOST_TEST((classify_slo(110, 120, 100) == slo_status::fail));
    BOOST_TEST((std::min(slo_status::pass, slo_status::marginal) == slo_status::marginal));
    BOOST_TEST((std::min(slo_status::fail, slo_status::marginal) == slo_status::fail));

    using enum slo_status;
    const auto k = find_confident_slo_knee({1, 2, 4, 8, 16}, {pass, pass, marginal, pass, fail});
    BOOST_TEST(k.confident.found);
    BOOST_TEST(k.confident.rate == 2.0);
    BOOST_TEST(k.confident.non_monotonic == (std::vector<std::size_t>{3}), boost::test_tools::per_element());
    BOOST_TEST(k.point.found);
    BOOST_TEST(k.point.rate == 8.0);
    BOOST_TEST(k.point.warning.empty());
}

BOOST_AUTO_TEST_CASE(confidence_from_simulated_stages) {
    // Exponential latencies whose mean grows with the rate; the p99 limit sits
    // near stage 3's p99, so that stage is at best marginal.
    const std::vector<double> rates = {1, 2, 3, 4, 5};
    const std::vector<double> means = {100, 120, 150, 200, 300};
    const double limit = 150 * std::log(100.0);
    std::mt19937_64 rng(99);
    std::vector<slo_status> status;
    for (const double mean : means) {
        std::vector<double> sample(2000);
        for (auto& x : sample) {
            x = mean * exponential(rng);
        }
        std::sort(sample.begin(), sample.end());
        const auto percentile = [&](double pct) { return nearest_rank(sample, pct); };
        const auto ci = ci_values(percentile_ci(sample.size(), 99), sample.size(), percentile);
        status.push_back(classify_slo(percentile(99), ci.sufficient ? std::optional(ci.hi) : std::nullopt, limit));
    }
    const auto k = find_confident_slo_knee(rates, status);
    BOOST_TEST(k.confident.rate == 2.0);
    BOOST_TEST(k.point.rate >= k.confident.rate);
    BOOST_TEST(k.point.rate <= 3.0);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE(planner)

namespace {

// Runs the planner against an oracle; checks no rate repeats.
rate_planner run(planner_options options, double capacity, std::vector<double>& proposed) {
    rate_planner p(options);
    std::set<double> seen;
    while (const auto r = p.next_rate()) {
        BOOST_TEST_REQUIRE(seen.insert(*r).second, "proposed " << *r << " twice");
        proposed.push_back(*r);
        p.record(*r <= capacity);
    }
    return p;
}

}  // namespace

BOOST_AUTO_TEST_CASE(converges_on_the_capacity) {
    std::vector<double> proposed;
    auto p = run({}, 13.7, proposed);
    BOOST_TEST(p.done());
    BOOST_TEST(proposed.front() == 1.0);
    BOOST_TEST(proposed[4] == 16.0);  // 1, 2, 4, 8, 16: the ramp
    BOOST_TEST(p.highest_good().value() <= 13.7);
    BOOST_TEST(p.lowest_bad().value() > 13.7);
    BOOST_TEST((*p.lowest_bad() - *p.highest_good()) / *p.highest_good() <= 0.05);
    BOOST_TEST(std::abs(*p.highest_good() - 13.7) / 13.7 <= 0.05);
    BOOST_TEST(p.stages() == proposed.size());
    BOOST_TEST(p.stages() <= 10u);
    BOOST_TEST(contains(p.reason(), "converged"), p.reason());
    BOOST_CHECK_THROW(p.record(true), std::logic_error);
}

BOOST_AUTO_TEST_CASE(ramps_down_from_a_bad_start) {
    std::vector<double> proposed;
    planner_options o;
    o.start_rate = 100;
    o.precision = 0.01;
    const auto p = run(o, 13.7, proposed);
    BOOST_TEST(proposed[1] == 50.0);
    BOOST_TEST(std::abs(*p.highest_good() - 13.7) / 13.7 <= 0.01);
    BOOST_TEST(*p.lowest_bad() > 13.7);
}

BOOST_AUTO_TEST_CASE(stops_at_the_bounds) {
    std::vector<double> proposed;
    planner_options o;
    o.max_rate = 100;
    const auto always_good = run(o, 1e9, proposed);
    BOOST_TEST(proposed.back() == 100.0);  // 64 then clamped to 100
    BOOST_TEST(!always_good.lowest_bad());
    BOOST_TEST(contains(always_good.reason(), "max_rate"), always_good.reason());

    proposed.clear();
    o.min_rate = 0.1;
    const auto always_bad = run(o, 0, proposed);
    BOOST_TEST(!always_bad.highest_good());
    BOOST_TEST(proposed.back() >= 0.1);
    BOOST_TEST(contains(always_bad.reason(), "min_rate"), always_bad.reason());

    proposed.clear();
    o = {};
    o.precision = 1e-15;  // finer than doubles: stops, never repeats
    const auto fine = run(o, 13.7, proposed);
    BOOST_TEST(fine.done());
    BOOST_TEST(fine.stages() < o.max_stages);

    proposed.clear();
    o.max_stages = 3;
    BOOST_TEST(run(o, 13.7, proposed).stages() == 3u);

    BOOST_CHECK_THROW(rate_planner({.start_rate = 0}), std::invalid_argument);
    BOOST_CHECK_THROW(rate_planner({.factor = 1}), std::invalid_argument);
    BOOST_CHECK_THROW(rate_planner({.precision = 0}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()

BOOST_AUTO_TEST_SUITE_END()
