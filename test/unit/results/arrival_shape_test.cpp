#include <boost/test/unit_test.hpp>

// The sends against the schedule's gaps: kept, smoothed, bunched, too few to say.

#include "openloop/results/arrival_shape.hpp"

#include <algorithm>
#include <random>

BOOST_AUTO_TEST_SUITE(unit_arrival_shape)

using namespace openloop;

namespace {

// Exponential gaps of the given mean (ns), as a Poisson schedule has them.
histogram poisson_gaps(double mean_ns, int n, std::uint64_t seed, std::int64_t floor_ns = 0) {
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> gap(1.0 / mean_ns);
    histogram h;
    for (int i = 0; i < n; ++i) h.record(std::max(floor_ns, static_cast<std::int64_t>(gap(rng))));
    return h;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sends_that_keep_the_schedule_pass) {
    const histogram asked = poisson_gaps(50'000, 100'000, 1), sent = poisson_gaps(50'000, 100'000, 2);
    const arrival_shape a = judge_arrivals(asked, sent);
    BOOST_TEST(a.judged);
    BOOST_TEST(!a.smoothed);
    BOOST_TEST(static_cast<double>(a.short_ns) == 12'500.0, boost::test_tools::tolerance(0.02));
    // A quarter of the mean: 1 - e^-1/4 of an exponential's gaps.
    BOOST_TEST(a.asked_short == 0.2212, boost::test_tools::tolerance(0.03));
    BOOST_TEST(a.ks_distance < 0.01);
}

// No two sends closer than 30 us while the schedule asks for 50 us on average:
// short gaps all but vanish, and the verdict's rule says so.
BOOST_AUTO_TEST_CASE(a_floor_under_the_gaps_is_smoothing) {
    const histogram asked = poisson_gaps(50'000, 100'000, 1), sent = poisson_gaps(50'000, 100'000, 2, 30'000);
    const arrival_shape a = judge_arrivals(asked, sent);
    BOOST_TEST(a.smoothed);
    BOOST_TEST(a.sent_short == 0.0);
    BOOST_TEST(a.z > 3.09);
    BOOST_TEST(a.ks_distance > 0.3);
}

// Late sends that catch up come closer together, not further apart: the lag
// bound judges lateness, and this rule only smoothing.
BOOST_AUTO_TEST_CASE(bunching_is_not_smoothing) {
    const histogram asked = poisson_gaps(50'000, 100'000, 1), sent = poisson_gaps(40'000, 100'000, 2);
    const arrival_shape a = judge_arrivals(asked, sent);
    BOOST_TEST(a.sent_short > a.asked_short);
    BOOST_TEST(!a.smoothed);
}

BOOST_AUTO_TEST_CASE(too_few_gaps_are_not_judged) {
    const histogram asked = poisson_gaps(50'000, 150, 1), sent = poisson_gaps(50'000, 150, 2, 30'000);
    const arrival_shape a = judge_arrivals(asked, sent);
    BOOST_TEST(!a.judged);
    BOOST_TEST(!a.smoothed);
    BOOST_TEST(!judge_arrivals(histogram{}, histogram{}).judged);
}

// Sends held against a schedule only where one set them.
BOOST_AUTO_TEST_CASE(only_an_open_loop_without_queued_requests_is_judged) {
    run_stats s;
    BOOST_TEST(arrival_shape_applies(s, "open-loop"));
    BOOST_TEST(!arrival_shape_applies(s, "closed-loop"));
    s.queued = 1;  // --max-concurrency sent it when a slot freed
    BOOST_TEST(!arrival_shape_applies(s, "open-loop"));
}

BOOST_AUTO_TEST_SUITE_END()
