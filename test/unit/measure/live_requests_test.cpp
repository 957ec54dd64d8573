#include <boost/test/unit_test.hpp>

#include "openloop/measure/live_requests.hpp"

#include <vector>

BOOST_AUTO_TEST_SUITE(unit_live_requests)

using namespace openloop;

BOOST_AUTO_TEST_CASE(a_started_request_is_found_until_it_ends) {
    live_requests live;
    request_timeline* r = live.begin(7);
    BOOST_TEST_REQUIRE(r != nullptr);
    r->intended = 42;
    BOOST_TEST(live.begin(7) == nullptr);  // a duplicate start keeps the clocks
    BOOST_TEST(live.find(7)->intended == 42);
    BOOST_TEST(live.find(8) == nullptr);
    BOOST_TEST(live.size() == 1u);
    live.end(7);
    BOOST_TEST(live.find(7) == nullptr);
    live.end(7);  // twice is nothing
    BOOST_TEST(live.size() == 0u);
}

BOOST_AUTO_TEST_CASE(a_reused_node_starts_clean_with_its_gaps_memory) {
    live_requests live;
    request_timeline* r = live.begin(1);
    r->intended = 5;
    r->chunks = 9;
    r->gaps.resize(64);
    const auto capacity = r->gaps.capacity();
    live.end(1);
    request_timeline* next = live.begin(2);
    BOOST_TEST(next->intended == request_timeline{}.intended);
    BOOST_TEST(next->chunks == 0);
    BOOST_TEST(next->gaps.empty());
    BOOST_TEST(next->gaps.capacity() == capacity);
}

BOOST_AUTO_TEST_CASE(take_all_hands_out_what_is_left_in_index_order) {
    live_requests live;
    for (std::uint64_t i : {30u, 10u, 20u}) live.begin(i)->input_tokens = static_cast<int>(i);
    std::vector<std::uint64_t> order;
    live.take_all([&](std::uint64_t index, const request_timeline& r) {
        BOOST_TEST(r.input_tokens == static_cast<int>(index));
        order.push_back(index);
    });
    BOOST_TEST(order == (std::vector<std::uint64_t>{10, 20, 30}), boost::test_tools::per_element());
    BOOST_TEST(live.size() == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
