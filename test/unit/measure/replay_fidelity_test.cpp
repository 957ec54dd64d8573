#include <boost/test/unit_test.hpp>

#include "trace_samples.hpp"

#include "openloop/measure/replay_fidelity.hpp"

#include <vector>

BOOST_AUTO_TEST_SUITE(unit_replay_fidelity)

using namespace openloop;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

trace_entry entry(int input, std::vector<std::uint64_t> ids) { return trace_samples::entry(input, std::move(ids), 16); }

completed_lengths done(std::uint64_t i, std::int64_t in, std::int64_t server_in, std::int64_t cached, std::int64_t at_send) {
    return {i, in, server_in, 16, 16, cached, at_send};
}

}  // namespace

BOOST_AUTO_TEST_CASE(signed_percentiles_order_negatives_first) {
    signed_histogram h;
    for (const std::int64_t v : {-50, -3, -3, 0, 0, 0, 2, 7, 7, 1000}) h.record(v);
    BOOST_TEST(h.count() == 10u);
    BOOST_TEST(h.zero() == 3u);
    BOOST_TEST(h.min() == -50);
    BOOST_TEST(h.max() == 1000);
    BOOST_TEST(h.percentile(10) == -50);  // rank 1
    BOOST_TEST(h.percentile(20) == -3);   // rank 2
    BOOST_TEST(h.percentile(30) == -3);
    BOOST_TEST(h.percentile(40) == 0);
    BOOST_TEST(h.percentile(60) == 0);
    BOOST_TEST(h.percentile(70) == 2);
    BOOST_TEST(h.percentile(90) == 7);
    BOOST_TEST(h.percentile(100) == 1000);
    BOOST_TEST(h.mean() == (-50 - 6 + 2 + 14 + 1000) / 10.0);
    const signed_histogram empty;
    BOOST_TEST(empty.percentile(50) == 0);
}

BOOST_AUTO_TEST_CASE(lengths_count_exact_errors_and_the_worst_five) {
    length_fidelity_stats f;
    // request: intended, server
    const std::int64_t rows[][3] = {{0, 100, 100}, {1, 100, 90}, {2, 200, 230}, {3, 50, 50}, {4, 400, 399},
                                    {5, 100, 110}, {6, 10, 40},  {7, 300, 260}, {8, 100, 60}};
    for (const auto& r : rows) f.record(static_cast<std::uint64_t>(r[0]), r[1], r[2]);
    BOOST_TEST(f.checked == 9u);
    BOOST_TEST(f.exact == 2u);
    // Errors sorted: -40 -40 -10 -1 0 0 10 30 30.
    BOOST_TEST(f.error_tokens.percentile(50) == 0);
    BOOST_TEST(f.error_tokens.min() == -40);
    BOOST_TEST(f.error_tokens.max() == 30);
    // In 0.01 %: request 6 is +300 %, request 8 -40 %.
    BOOST_TEST(f.error_basis_pts.max() == 30000);
    BOOST_TEST(f.error_basis_pts.min() == -4000);
    // |error| 40 (7, 8), 30 (2, 6), 10 (1 and 5: 1 came first); ties keep the earlier request first.
    BOOST_TEST_REQUIRE(f.worst_count == 5u);
    const std::uint64_t order[] = {7, 8, 2, 6, 1};
    for (std::size_t i = 0; i < 5; ++i) BOOST_TEST(f.worst[i].request == order[i], "rank " << i);
    BOOST_TEST(f.worst[0].intended == 300);
    BOOST_TEST(f.worst[0].server == 260);
}

BOOST_AUTO_TEST_CASE(minutes_count_intended_and_actual_send_times) {
    const std::vector<trace_entry> t = {entry(10, {}), entry(10, {}), entry(10, {})};
    replay_fidelity f(&t);
    const std::int64_t origin = 500 * s_ns;
    // Asked: minute 0 twice, minute 1 once; the second goes out late, in minute 1.
    f.asked(origin);
    f.sent(0, origin + s_ns / 1000);
    f.asked(origin + 59 * s_ns);
    f.sent(1, origin + 61 * s_ns);
    f.asked(origin + 150 * s_ns);  // minute 2, refused: never delivered
    const minute_counts& m = f.minutes();
    BOOST_TEST(m.asked == (std::vector<std::uint64_t>{2, 0, 1}), boost::test_tools::per_element());
    BOOST_TEST(m.delivered == (std::vector<std::uint64_t>{1, 1, 0}), boost::test_tools::per_element());
    BOOST_TEST(m.worst_minute() == 0);  // |2-1| = |0-1| = |1-0|: the first
    BOOST_TEST(minute_counts{}.worst_minute() == -1);
}

BOOST_AUTO_TEST_CASE(prefix_reuse_against_what_the_server_cached) {
    const std::vector<trace_entry> t = {entry(1024, {1, 2}), entry(1500, {1, 2, 3}), entry(600, {1, 9})};
    replay_fidelity f(&t);
    BOOST_TEST(f.replay());
    // 0 and 1 go out together: when 1 is sent, nothing has completed yet.
    BOOST_TEST(f.sent(0, 0) == 0);
    BOOST_TEST(f.sent(1, 1) == 0);
    f.completed(done(0, 1024, 1024, -1, 0));
    f.cached_by_server(0);
    f.completed(done(1, 1500, 1500, -1, 0));
    f.cached_by_server(1);
    BOOST_TEST(f.sent(2, 2) == 512);  // block 1 only: 9 is new
    f.completed(done(2, 600, 600, 496, 512));
    f.cached_by_server(2);
    // Request 3 is lap 2's entry 0: both blocks seen, 1024.
    BOOST_TEST(f.sent(3, 3) == 1024);
    f.completed(done(3, 1024, 1024, 1008, 1024));
    const prefix_reuse_stats& p = f.prefix();
    BOOST_TEST(p.completed == 4u);
    BOOST_TEST(p.implied_tokens == 0 + 1024 + 512 + 1024);  // the trace: 1 follows 0, 2 follows both
    BOOST_TEST(p.at_send_tokens == 512 + 1024);
    BOOST_TEST(p.reusing_at_send == 2u);
    BOOST_TEST(p.cached_tokens == 496 + 1008);
    BOOST_TEST(p.cached_reported == 2u);
    BOOST_TEST(f.input().checked == 4u);
    BOOST_TEST(f.input().exact == 4u);
}

BOOST_AUTO_TEST_CASE(without_a_trace_only_lengths_are_kept) {
    replay_fidelity f;
    BOOST_TEST(!f.replay());
    f.asked(0);
    BOOST_TEST(f.sent(0, 1) == -1);
    f.cached_by_server(0);
    f.completed(done(0, 100, 101, 64, -1));
    BOOST_TEST(f.minutes().asked.empty());
    BOOST_TEST(f.prefix().completed == 0u);
    BOOST_TEST(f.input().checked == 1u);
    BOOST_TEST(f.input().exact == 0u);
    BOOST_TEST(f.input().worst[0].server == 101);
    const std::vector<trace_entry> none;
    BOOST_TEST(!replay_fidelity(&none).replay());
}

BOOST_AUTO_TEST_SUITE_END()
