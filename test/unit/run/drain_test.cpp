#include <boost/test/unit_test.hpp>

#include "openloop/run/drain.hpp"

BOOST_AUTO_TEST_SUITE(unit_drain)

using openloop::default_drain_s;

BOOST_AUTO_TEST_CASE(a_multiple_of_the_longest_e2e) {
    BOOST_TEST(default_drain_s(20.0, 100.0) == 60.0);
    BOOST_TEST(default_drain_s(4.0, 0.0) == 12.0);
}

BOOST_AUTO_TEST_CASE(floor_and_ceiling) {
    BOOST_TEST(default_drain_s(0.2, 3.0) == 10.0);
    BOOST_TEST(default_drain_s(0.0, 0.0) == 10.0);
    BOOST_TEST(default_drain_s(500.0, 1.0) == 300.0);
}

// Nothing ended yet: the age of the first request is what is known of its E2E.
BOOST_AUTO_TEST_CASE(nothing_ended_uses_the_first_send_age) {
    BOOST_TEST(default_drain_s(std::nullopt, 3.0) == 10.0);
    BOOST_TEST(default_drain_s(std::nullopt, 40.0) == 120.0);
    BOOST_TEST(default_drain_s(std::nullopt, 3600.0) == 300.0);
    BOOST_TEST(default_drain_s(std::nullopt, -1.0) == 10.0);
}

BOOST_AUTO_TEST_SUITE_END()
