#include <boost/test/unit_test.hpp>

#include "openloop/results/queue_trend.hpp"

#include <cmath>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_queue_trend)

using namespace openloop;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A stationary queue: an AR(1) series around `level` whose correlation time
// is tau_steps samples, with unit-ish Poisson-like spread sqrt(level).
std::vector<double> stationary(std::size_t n, double level, double tau_steps, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<double> noise(0, 1);
    const double phi = std::exp(-1 / tau_steps);
    const double sd = std::sqrt(level);
    std::vector<double> v(n);
    double x = 0;
    for (auto& s : v) {
        x = phi * x + std::sqrt(1 - phi * phi) * noise(rng);
        s = std::max(0.0, level + sd * x);
    }
    return v;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_growing_queue_is_saturated) {
    // 30 s at 100 ms, gaining 1 request/s on top of the noise.
    auto v = stationary(300, 10, 10, 1);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] += 0.1 * static_cast<double>(i);
    const auto q = judge_queue(v, 0.1, 1.0);
    BOOST_TEST(q.judged);
    BOOST_TEST(q.growing);
    BOOST_TEST(q.p < 0.001);
    BOOST_TEST(q.last - q.first > 15);
    BOOST_TEST(q.window_s == 30.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(contains(q.evidence, "in flight grew"), q.evidence);
    BOOST_TEST(contains(q.evidence, "(p < 0.001)"), q.evidence);
}

BOOST_AUTO_TEST_CASE(a_flat_queue_is_not_saturated) {
    const std::vector<double> flat(200, 4.0);
    const auto q = judge_queue(flat, 0.1, 1.0);
    BOOST_TEST(q.judged);
    BOOST_TEST(!q.growing);
    BOOST_TEST(q.mean == 4.0);
    BOOST_TEST(contains(q.evidence, "no significant growth"), q.evidence);
}

BOOST_AUTO_TEST_CASE(a_stationary_queue_rarely_looks_saturated) {
    // Correlation far longer than one E2E (a queue near capacity wanders):
    // the worst-case floor keeps false alarms rare all the same.
    int alarms = 0;
    for (std::uint64_t seed = 0; seed < 400; ++seed) {
        const auto q = judge_queue(stationary(200, 20, 60, seed), 0.1, 0.5);
        alarms += q.growing;
    }
    BOOST_TEST(alarms <= 12, alarms << " of 400");
}

BOOST_AUTO_TEST_CASE(a_small_rise_is_not_growth) {
    // Significant but under two requests: no backlog worth the name.
    std::vector<double> v(300);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = 3 + 1.5 * static_cast<double>(i) / 300.0;
    const auto q = judge_queue(v, 0.1, 0.2);
    BOOST_TEST(q.p < 0.01);
    BOOST_TEST(!q.growing);
}

BOOST_AUTO_TEST_CASE(too_few_samples_are_not_judged) {
    const auto q = judge_queue(std::vector<double>{1, 2, 3, 4, 5, 6}, 0.1, 1.0);
    BOOST_TEST(!q.judged);
    BOOST_TEST(!q.growing);
    BOOST_TEST(contains(q.evidence, "too few samples"), q.evidence);
}

BOOST_AUTO_TEST_CASE(rejects_bad_arguments) {
    BOOST_CHECK_THROW(judge_queue({1, 2}, 0, 1), std::invalid_argument);
    BOOST_CHECK_THROW(judge_queue({1, 2}, 0.1, -1), std::invalid_argument);
    BOOST_CHECK_THROW(judge_queue({1, 2}, 0.1, std::nan("")), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(a_steady_queue_excludes_overload_only_with_a_rate_and_a_long_enough_window) {
    const auto flat = stationary(600, 20, 5, 3);  // 60 s
    queue_trend_options o;
    BOOST_TEST(!judge_queue(flat, 0.1, 0.5, o).overload_excluded);  // no rate: nothing to exclude
    o.rate = 10;  // 5 % overload gains 0.5 requests a second: 20 between the thirds
    const auto q = judge_queue(flat, 0.1, 0.5, o);
    BOOST_TEST(!q.growing);
    BOOST_TEST(q.overload_excluded);
    BOOST_TEST(contains(q.evidence, "5 % overload excluded"));
    const std::vector<double> short_window(flat.begin(), flat.begin() + 30);  // 3 s: 1 request, inside the noise
    BOOST_TEST(!judge_queue(short_window, 0.1, 0.5, o).overload_excluded);
}

BOOST_AUTO_TEST_SUITE_END()
