#include <boost/test/unit_test.hpp>

// The sweep's rule: a clock past due fires once; one not yet due, or fired
// already, is left alone. (The timeouts it enforces on real sockets are
// it_hostile_*'s stalled and endless servers.)

#include "openloop/wire/deadline_sweep.hpp"

#include <vector>

BOOST_AUTO_TEST_SUITE(unit_deadline_sweep)

using namespace openloop;

BOOST_AUTO_TEST_CASE(past_due_clocks_fire_once) {
    request_clock a, b, c;
    a.at_ns = 10;
    b.at_ns = 30;
    c.at_ns = 20;
    a.next = &b;
    b.next = &c;
    std::vector<request_clock*> fired;
    const auto note = [&](request_clock& x) { fired.push_back(&x); };
    fire_due(&a, 5, note);
    BOOST_TEST(fired.empty());
    fire_due(&a, 20, note);
    BOOST_TEST((fired == std::vector<request_clock*>{&a, &c}));
    fire_due(&a, 25, note);
    BOOST_TEST(fired.size() == 2u);  // a and c fired already, b not yet due
    fire_due(&a, 30, note);
    BOOST_TEST((fired == std::vector<request_clock*>{&a, &c, &b}));
    BOOST_TEST((a.fired && b.fired && c.fired));
}

BOOST_AUTO_TEST_SUITE_END()
