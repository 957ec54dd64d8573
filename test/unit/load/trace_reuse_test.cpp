#include <boost/test/unit_test.hpp>

#include "trace_samples.hpp"

#include "openloop/load/trace_reuse.hpp"

#include <vector>

BOOST_AUTO_TEST_SUITE(unit_trace_reuse)

using namespace openloop;

namespace {

using trace_samples::entry;

}  // namespace

BOOST_AUTO_TEST_CASE(leading_seen_blocks_count_512_tokens_each) {
    const std::vector<trace_entry> t = {
        entry(1536, {1, 2, 3}),      // nothing seen yet
        entry(2000, {1, 2, 4, 5}),   // 1, 2 seen: 1024
        entry(700, {1, 2, 4}),       // its 700 tokens lie in 1 and 2, both seen
        entry(1200, {6, 2}),         // a leading miss: nothing, though 2 was seen
        entry(1536, {1, 2, 3}),      // all seen: capped at the input, 1536
    };
    const std::vector<int> reuse = implied_reuse(t);
    BOOST_TEST(reuse == (std::vector<int>{0, 1024, 700, 0, 1536}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_block_sent_in_part_covers_only_that_part) {
    const std::vector<trace_entry> t = {
        entry(600, {1, 2}),          // block 2 sent as 88 tokens
        entry(1500, {1, 2, 3}),      // 512 + 88, then stops: the rest of 2 was never sent
        entry(1500, {1, 2, 3}),      // now 2 and 3 were sent whole (3 as 476): 1500
        entry(0, {1}),               // sent as one token: 1 of block 1
    };
    const std::vector<int> reuse = implied_reuse(t);
    BOOST_TEST(reuse == (std::vector<int>{0, 600, 1500, 1}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(later_laps_see_all_of_an_entrys_blocks) {
    const std::vector<trace_entry> t = {entry(1300, {1, 2, 3}), entry(400, {1}), entry(900, {7})};
    const std::vector<int> reuse = implied_reuse(t);
    BOOST_TEST(reuse == (std::vector<int>{0, 400, 0}), boost::test_tools::per_element());
    BOOST_TEST(implied_reuse_at(t, reuse, 0) == 0);
    BOOST_TEST(implied_reuse_at(t, reuse, 2) == 0);
    BOOST_TEST(implied_reuse_at(t, reuse, 3) == 1300);  // lap 2, entry 0: 512 + 512 + 276
    BOOST_TEST(implied_reuse_at(t, reuse, 5) == 512);  // one block; its other 388 tokens are unique to each request
    BOOST_TEST(implied_reuse_at(t, reuse, 7) == 400);
    BOOST_TEST(implied_reuse_at({}, {}, 4) == 0);
}

BOOST_AUTO_TEST_CASE(entries_without_blocks_reuse_nothing) {
    const std::vector<trace_entry> t = {entry(100, {}), entry(100, {})};
    BOOST_TEST(implied_reuse(t) == (std::vector<int>{0, 0}), boost::test_tools::per_element());
    BOOST_TEST(implied_reuse_at(t, implied_reuse(t), 3) == 0);
}

BOOST_AUTO_TEST_CASE(prefix_blocks_grow_as_requests_complete) {
    prefix_blocks seen;
    const trace_entry a = entry(1024, {1, 2});
    const trace_entry b = entry(2048, {1, 2, 3, 4});
    BOOST_TEST(seen.reusable(b) == 0);
    seen.add(a);
    BOOST_TEST(seen.reusable(b) == 1024);
    seen.add(b);
    BOOST_TEST(seen.reusable(b) == 2048);
    BOOST_TEST(seen.reusable(a) == 1024);
}

BOOST_AUTO_TEST_SUITE_END()
