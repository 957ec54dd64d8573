#include <boost/test/unit_test.hpp>

#include "openloop/base/fifo.hpp"

#include <memory>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_fifo)

using openloop::fifo;

BOOST_AUTO_TEST_CASE(keeps_order_across_the_ring_s_end_and_through_growth) {
    fifo<int> q(4);
    int next_in = 0, next_out = 0;
    // Fill and drain unevenly so the head walks round the ring, then grow
    // while the contents wrap past its end.
    for (int round = 0; round < 50; ++round) {
        for (int i = 0; i < 3; ++i) q.push(next_in++);
        for (int i = 0; i < 2; ++i) BOOST_TEST(q.pop() == next_out++);
    }
    BOOST_TEST(q.size() == static_cast<std::size_t>(next_in - next_out));
    for (std::size_t i = 0; i < q.size(); ++i) BOOST_TEST(q[i] == next_out + static_cast<int>(i));
    BOOST_TEST(q.front() == next_out);
    while (!q.empty()) BOOST_TEST(q.pop() == next_out++);
    BOOST_TEST(next_out == next_in);
}

BOOST_AUTO_TEST_CASE(moves_what_it_holds_and_clear_lets_it_go) {
    fifo<std::unique_ptr<std::string>> q(1);
    q.push(std::make_unique<std::string>("a"));
    q.push(std::make_unique<std::string>("b"));  // grows from one slot
    auto kept = std::make_shared<int>(7);
    fifo<std::shared_ptr<int>> shared(2);
    shared.push(kept);
    BOOST_TEST(kept.use_count() == 2);
    shared.clear();
    BOOST_TEST(kept.use_count() == 1);
    BOOST_TEST(shared.empty());
    BOOST_TEST(*q.pop() == "a");
    BOOST_TEST(*q.pop() == "b");
}

BOOST_AUTO_TEST_SUITE_END()
