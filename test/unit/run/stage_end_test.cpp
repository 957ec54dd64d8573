#include <boost/test/unit_test.hpp>

#include "openloop/run/stage_end.hpp"

#include <cmath>
#include <cstdint>
#include <random>

BOOST_AUTO_TEST_SUITE(unit_stage_end)

using namespace openloop;

namespace {

stage_end_options ten_per_second() {
    stage_end_options o;
    o.min_s = 10;
    o.min_requests = 50;
    o.rate = 10;
    o.base_e2e_s = 0.5;
    o.step_s = 0.1;
    return o;
}

// Feeds `seconds` of in-flight samples from level(t) and one completion of
// e2e_s per 0.1 s, asking done() at every step; returns when it said yes.
template <class Level>
double run_until_done(stage_end& end, double seconds, double e2e_s, Level level) {
    for (int i = 0; i < static_cast<int>(seconds * 10); ++i) {
        const double t = i * 0.1;
        end.sample(static_cast<std::size_t>(std::max(0.0, level(t))));
        end.completed(e2e_s);
        if (end.done(t, static_cast<std::uint64_t>(t * 10))) return t;
    }
    return -1;
}

}  // namespace

BOOST_AUTO_TEST_CASE(minimums_come_first) {
    stage_end end(ten_per_second());
    BOOST_TEST(!end.done(20, 500));  // nothing completed yet: its E2E is longer than the window
    end.completed(0.5);
    BOOST_TEST(!end.done(9.9, 500));   // --stage-duration
    BOOST_TEST(!end.done(12, 49));     // --min-samples
    stage_end slow(ten_per_second());
    slow.completed(3);  // twenty E2Es, held to twice the low-load E2E: 20 x 1 s
    BOOST_TEST(!slow.done(19.5, 500));
}

BOOST_AUTO_TEST_CASE(a_flat_queue_ends_soon_after_its_minimums) {
    stage_end end(ten_per_second());
    std::mt19937_64 rng(7);
    std::normal_distribution<double> noise(0, 1);
    const double t = run_until_done(end, 60, 0.5, [&](double) { return 5 + 2 * noise(rng); });
    BOOST_TEST(t >= 10);
    BOOST_TEST(t < 40);  // decided before the cap, 4 x 10 s (20 x 0.5 s)
    BOOST_TEST(end.decided());
}

BOOST_AUTO_TEST_CASE(a_growing_queue_ends_decided) {
    stage_end end(ten_per_second());
    // 2 requests a second gained: 20 % of the rate.
    const double t = run_until_done(end, 60, 0.5, [](double s) { return 5 + 2 * s; });
    BOOST_TEST(t >= 10);
    BOOST_TEST(t < 12);
    BOOST_TEST(end.decided());
}

BOOST_AUTO_TEST_CASE(a_wandering_queue_runs_to_the_cap_undecided) {
    stage_end_options o = ten_per_second();
    o.max_extension = 2;
    stage_end end(o);
    // Noise far larger than the overload it would have to exclude (0.5
    // requests a second): neither growth beyond doubt nor steadiness within 20 s.
    std::mt19937_64 rng(11);
    std::normal_distribution<double> noise(0, 1);
    const double t = run_until_done(end, 60, 0.5, [&](double) { return 100 + 40 * noise(rng); });
    BOOST_TEST(t >= 20);
    BOOST_TEST(t < 20.2);
    BOOST_TEST(!end.decided());
}

BOOST_AUTO_TEST_SUITE_END()
