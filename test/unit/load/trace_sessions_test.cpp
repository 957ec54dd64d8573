#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/trace_sessions.hpp"

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_trace_sessions)

using namespace openloop;

namespace {

trace_entry row(std::int64_t at_ms, std::string session, int input = 100, int output = 10) {
    trace_entry e;
    e.at_ns = at_ms * 1'000'000;
    e.input_tokens = input;
    e.output_tokens = output;
    e.session = std::move(session);
    return e;
}

}  // namespace

BOOST_AUTO_TEST_CASE(rows_sharing_an_id_are_one_session_in_time_order) {
    const std::vector<trace_entry> rows{row(0, "a"), row(5, "b"), row(7, ""), row(9, "a"), row(12, "b"), row(20, "a")};
    BOOST_TEST(has_session_ids(rows));
    const trace_sessions t = group_trace_sessions(rows, 1000, "t.jsonl");
    BOOST_TEST_REQUIRE(t.sessions.size() == 3u);
    BOOST_TEST(t.sessions[0].turns == (std::vector<std::size_t>{0, 3, 5}), boost::test_tools::per_element());
    BOOST_TEST(t.sessions[1].turns == (std::vector<std::size_t>{1, 4}), boost::test_tools::per_element());
    BOOST_TEST(t.sessions[2].turns == (std::vector<std::size_t>{2}), boost::test_tools::per_element());  // no id: alone
    BOOST_TEST(t.max_turns == 3);
    BOOST_TEST(!has_session_ids({row(0, ""), row(1, "")}));
}

BOOST_AUTO_TEST_CASE(a_session_past_the_most_turns_is_named) {
    std::vector<trace_entry> rows;
    for (int i = 0; i < 4; ++i) rows.push_back(row(i, "chat-7"));
    BOOST_CHECK_NO_THROW(group_trace_sessions(rows, 4, "t.csv"));
    try {
        group_trace_sessions(rows, 3, "t.csv");
        BOOST_FAIL("no error");
    } catch (const input_error& e) {
        const std::string what = e.what();
        BOOST_TEST(what.starts_with("t.csv: session \"chat-7\" has more than 3 turns"), what);
    }
}

BOOST_AUTO_TEST_CASE(a_later_turn_sends_what_its_prompt_holds_beyond_the_history) {
    trace_entry first = row(0, "a", 1500, 40);
    first.hash_ids = {1, 2};
    request_spec spec;
    trace_turn_request(first, 0, 9, 0, prompt_builder{}, spec);
    request_spec direct;
    trace_request(first, 9, 0, prompt_builder{}, direct);
    BOOST_TEST(spec.prompt == direct.prompt);  // the first turn with its prefix blocks
    BOOST_TEST(spec.input_tokens == 1500);

    const trace_entry later = row(30, "a", 1600, 20);
    trace_turn_request(later, 1540, 9, 1, prompt_builder{}, spec);
    BOOST_TEST(spec.input_tokens == 60);
    BOOST_TEST(count_text_tokens(spec.prompt) == 60);
    BOOST_TEST(spec.max_tokens == 20);
    request_spec other;
    trace_turn_request(later, 1540, 9, 2, prompt_builder{}, other);
    BOOST_TEST(other.prompt != spec.prompt);  // unique to its request

    // A prompt that holds less than the history still asks something.
    trace_turn_request(later, 5000, 9, 1, prompt_builder{}, spec);
    BOOST_TEST(spec.input_tokens == 1);
    // A literal prompt is the turn's own message.
    trace_entry literal = later;
    literal.prompt = "and in French?";
    trace_turn_request(literal, 1540, 9, 1, prompt_builder{}, spec);
    BOOST_TEST(spec.prompt == "and in French?");
}

BOOST_AUTO_TEST_CASE(a_plan_of_trace_sessions_has_their_turns) {
    session_config c;
    c.traced = std::make_shared<trace_sessions>(
        group_trace_sessions({row(0, "a"), row(1, "b"), row(2, "a"), row(3, "a")}, 1000, "t"));
    const session_plan plan(c);
    BOOST_TEST(plan.enabled());
    BOOST_TEST(plan.stride() == 3);
    BOOST_TEST(plan.traced_count() == 2u);
    BOOST_TEST(plan.turns(0) == 3);
    BOOST_TEST(plan.turns(1) == 1);
    BOOST_TEST(plan.traced(1)->turns.front() == 1u);
    BOOST_TEST(plan.traced(2)->turns.front() == 0u);  // --loop's second lap
    BOOST_TEST(plan.turns(3) == 1);
    BOOST_TEST(plan.recorded(0) == nullptr);
    BOOST_TEST(plan.describe() == "the trace's 2 sessions, up to 3 turns");
}

BOOST_AUTO_TEST_SUITE_END()
