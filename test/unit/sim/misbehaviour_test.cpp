#include <boost/test/unit_test.hpp>

#include "openloop/measure/resource_usage.hpp"
#include "openloop/sim/misbehaviour.hpp"

BOOST_AUTO_TEST_SUITE(unit_misbehaviour)

using namespace openloop;

BOOST_AUTO_TEST_CASE(a_well_behaved_server_keeps_its_step_time) {
    const misbehaviour_config m;
    BOOST_TEST(step_time_factor(m, 0) == 1.0);
    BOOST_TEST(step_time_factor(m, 36000) == 1.0);
}

BOOST_AUTO_TEST_CASE(the_slowdown_grows_with_the_hours) {
    misbehaviour_config m;
    m.slowdown_per_hour = 60;  // doubles after a minute
    BOOST_TEST(step_time_factor(m, 0) == 1.0);
    BOOST_TEST(step_time_factor(m, 60) == 2.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(step_time_factor(m, 90) == 2.5, boost::test_tools::tolerance(1e-12));
    m.slowdown_per_hour = 0.5;
    BOOST_TEST(step_time_factor(m, 4 * 3600) == 3.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(the_step_applies_from_its_time_on) {
    misbehaviour_config m;
    m.slowdown_step_at_s = 90;
    m.slowdown_step_factor = 3;
    BOOST_TEST(step_time_factor(m, 89.999) == 1.0);
    BOOST_TEST(step_time_factor(m, 90) == 3.0);
    BOOST_TEST(step_time_factor(m, 1000) == 3.0);
    m.slowdown_step_at_s = 0;  // from the start
    BOOST_TEST(step_time_factor(m, 0) == 3.0);
    // Both at once multiply.
    m.slowdown_per_hour = 60;
    BOOST_TEST(step_time_factor(m, 60) == 6.0, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(the_leak_is_resident_and_bounded) {
    leak_store store(5 << 20);
    const auto before = resident_memory_bytes();
    for (int i = 0; i < 4; ++i) BOOST_TEST(store.leak(1 << 20));
    BOOST_TEST(store.bytes() == 4 << 20);
    BOOST_TEST(resident_memory_bytes() - before >= 3 << 20);  // written, not just reserved
    BOOST_TEST(!store.leak(2 << 20));  // would pass 5 MiB
    BOOST_TEST(store.refused() == 1);
    BOOST_TEST(store.leak(1 << 20));  // exactly to the limit
    BOOST_TEST(!store.leak(1));
    BOOST_TEST(store.bytes() == 5 << 20);
    BOOST_TEST(store.refused() == 2);
    BOOST_TEST(store.leak(0));  // no leak asked: nothing kept, nothing refused
    BOOST_TEST(store.refused() == 2);
}

BOOST_AUTO_TEST_SUITE_END()
