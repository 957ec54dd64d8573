#include <boost/test/unit_test.hpp>

#include "openloop/measure/event.hpp"
#include "openloop/measure/session_stats.hpp"
#include "openloop/results/session_report.hpp"

BOOST_AUTO_TEST_SUITE(unit_session_stats)

using namespace openloop;

BOOST_AUTO_TEST_CASE(turns_are_read_from_the_index_and_capped) {
    session_stats s;
    s.stride = 200;
    // Session 3's turns 1, 2 and 150 (indexes 600, 601, 749).
    s.completed_turn(600, 40'000'000, 900'000'000, 100, -1);
    s.completed_turn(601, 20'000'000, 800'000'000, 300, 96);
    s.completed_turn(749, 10'000'000, 700'000'000, 5000, 4800);
    s.failed_turn(602);
    BOOST_TEST_REQUIRE(s.turns.size() == static_cast<std::size_t>(tracked_turns));
    BOOST_TEST(s.turns[0].completed == 1u);
    BOOST_TEST(s.turns[0].mean_cached_tokens() == 0.0);  // no cached figure: none cached
    BOOST_TEST(s.turns[1].mean_prompt_tokens() == 300.0);
    BOOST_TEST(s.turns[1].mean_cached_tokens() == 96.0);
    BOOST_TEST(s.turns[2].failed == 1u);
    BOOST_TEST(s.turns[tracked_turns - 1].completed == 1u);  // turn 150 shares the last row
    // TTFT per prompt token: 40 ms / 100 and 20 ms / 300.
    BOOST_TEST(s.turns[0].ttft_per_prompt_token.max() == 400'000);
    BOOST_TEST(s.turns[1].ttft_per_prompt_token.max() == 66'666);
}

BOOST_AUTO_TEST_CASE(sessions_end_completed_failed_or_cut) {
    session_stats s;
    s.stride = 8;
    s.session_ended(5'000'000'000, 1'000'000'000, 4, 4, 0);
    s.session_ended(9'000'000'000, 2'000'000'000, 2, 6, session_failed);
    s.session_ended(9'500'000'000, 3'000'000'000, 1, 8, session_cut);
    BOOST_TEST(s.started == 3u);
    BOOST_TEST(s.completed == 1u);
    BOOST_TEST(s.failed == 1u);
    BOOST_TEST(s.cut == 1u);
    BOOST_TEST(s.turns_planned == 18u);
    BOOST_TEST(s.turns_completed == 7u);
    BOOST_TEST(s.latency.count() == 1u);  // only completed sessions have a latency
    BOOST_TEST(s.latency.max() == 4'000'000'000);
}

BOOST_AUTO_TEST_CASE(rendered_as_json_and_table_rows) {
    session_stats s;
    s.stride = 4;
    s.completed_turn(0, 30'000'000, 500'000'000, 200, 0);
    s.completed_turn(1, 25'000'000, 400'000'000, 450, 192);
    s.session_ended(2'000'000'000, 0, 2, 2, 0);
    const auto o = sessions_json(s);
    BOOST_TEST(o.at("completed").as_uint64() == 1u);
    const auto& turns = o.at("by_turn").as_array();
    BOOST_TEST_REQUIRE(turns.size() == 2u);
    BOOST_TEST(turns[1].at("turn").as_uint64() == 2u);
    BOOST_TEST(turns[1].at("mean_cached_tokens").as_double() == 192.0);
    BOOST_TEST(turns[0].at("ttft_ms").at("p50").as_double() == 30.0, boost::test_tools::tolerance(0.001));
    const auto lines = session_lines(s);
    BOOST_TEST_REQUIRE(lines.size() == 6u);  // sessions, latency, blank, header, two turns
    BOOST_TEST(lines[0].find("1 completed") != std::string::npos);
    BOOST_TEST(lines[5].find("192") != std::string::npos);
}

// An agent's steps: what each generated, and which were tool calls (per step and in all).
BOOST_AUTO_TEST_CASE(agent_steps_count_output_and_tool_calls) {
    session_stats s;
    s.stride = 10;
    s.completed_turn(0, 1, 2, 300, 0, 24, true);
    s.completed_turn(10, 1, 2, 300, 256, 30, true);
    s.completed_turn(1, 1, 2, 400, 300, 100, false);
    s.completed_turn(11, 1, 2, 400, 300, -1, false);  // output not counted: left out of the mean
    BOOST_TEST(s.tool_calls == 2u);
    BOOST_TEST(s.turns[0].tool_calls == 2u);
    BOOST_TEST(s.turns[0].mean_output_tokens() == 27.0);
    BOOST_TEST(s.turns[1].tool_calls == 0u);
    BOOST_TEST(s.turns[1].with_output == 1u);
    BOOST_TEST(s.turns[1].mean_output_tokens() == 100.0);
}

BOOST_AUTO_TEST_SUITE_END()
