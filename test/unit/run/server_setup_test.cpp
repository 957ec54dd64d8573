#include <boost/test/unit_test.hpp>

#include "openloop/run/server_setup.hpp"

using namespace std::chrono_literals;
using openloop::setup_call_limit;

// A call before the schedule waits the budget, or --timeout when that is shorter.
BOOST_AUTO_TEST_CASE(the_budget_or_a_shorter_timeout) {
    BOOST_TEST(setup_call_limit(0ms).count() == 10'000);
    BOOST_TEST(setup_call_limit(5s).count() == 5'000);
    BOOST_TEST(setup_call_limit(250ms).count() == 250);
    BOOST_TEST(setup_call_limit(10min).count() == 10'000);
}
