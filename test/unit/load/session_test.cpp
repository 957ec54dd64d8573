#include <boost/test/unit_test.hpp>

#include "openloop/load/session.hpp"

#include <cmath>
#include <set>
#include <stdexcept>

BOOST_AUTO_TEST_SUITE(unit_session)

using namespace openloop;

BOOST_AUTO_TEST_CASE(turns_follow_the_distribution_and_are_a_function_of_the_session) {
    const session_plan plan({"uniform:2:8", "0", 7});
    BOOST_TEST(plan.enabled());
    BOOST_TEST(plan.stride() == 8);
    std::set<int> seen;
    double sum = 0;
    for (std::uint64_t s = 0; s < 4000; ++s) {
        const int t = plan.turns(s);
        BOOST_TEST_REQUIRE((t >= 2 && t <= 8));
        seen.insert(t);
        sum += t;
        BOOST_TEST(plan.turns(s) == t);  // the same session, the same turns: shards and reruns agree
    }
    BOOST_TEST(seen.size() == 7u);
    BOOST_TEST(std::abs(sum / 4000 - 5.0) < 0.15);
    // Another seed draws other sessions.
    const session_plan other({"uniform:2:8", "0", 8});
    int same = 0;
    for (std::uint64_t s = 0; s < 200; ++s) same += other.turns(s) == plan.turns(s);
    BOOST_TEST(same < 100);
}

BOOST_AUTO_TEST_CASE(request_indexes_never_collide) {
    const session_plan plan({"uniform:1:5", "0", 1});
    std::set<std::uint64_t> ids;
    for (std::uint64_t s = 0; s < 100; ++s)
        for (int k = 0; k < plan.turns(s); ++k) {
            const auto id = plan.request_index(s, k);
            BOOST_TEST(ids.insert(id).second);
            BOOST_TEST(id / plan.stride() == s);
            BOOST_TEST(static_cast<int>(id % plan.stride()) == k);
        }
}

BOOST_AUTO_TEST_CASE(no_turns_means_no_sessions) {
    const session_plan plan({"", "5s", 1});
    BOOST_TEST(!plan.enabled());
}

BOOST_AUTO_TEST_CASE(think_times_have_their_mean) {
    const session_plan fixed({"4", "1.5s", 3});
    BOOST_TEST(fixed.think_ns(0, 1) == 1'500'000'000);
    const session_plan expo({"4", "exponential:2s", 3});
    double sum = 0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) sum += static_cast<double>(expo.think_ns(static_cast<std::uint64_t>(i), 1)) / 1e9;
    BOOST_TEST(std::abs(sum / n - 2.0) < 0.06);
    const auto uni = duration_dist::parse("uniform:100ms:300ms", "--think-time");
    BOOST_TEST(uni.mean_s() == 0.2);
    request_rng rng(9);
    for (int i = 0; i < 1000; ++i) {
        const auto ns = uni.sample_ns(rng);
        BOOST_TEST_REQUIRE((ns >= 100'000'000 && ns <= 300'000'000));
    }
    const auto logn = duration_dist::parse("lognormal:1s:0.5", "--think-time");
    BOOST_TEST(std::abs(logn.mean_s() - std::exp(0.125)) < 1e-12);
    BOOST_TEST(duration_dist::parse(logn.describe(), "x").describe() == logn.describe());
}

BOOST_AUTO_TEST_CASE(bad_values_name_the_flag) {
    const auto message = [](const session_config& c) {
        try {
            session_plan p(c);
        } catch (const std::invalid_argument& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    BOOST_TEST(message({"lognormal:4:0.5", "0", 1}).find("--turns") != std::string::npos);  // no maximum
    BOOST_TEST(message({"0", "0", 1}).find("--turns") != std::string::npos);
    BOOST_TEST(message({"3", "sometimes", 1}).find("--think-time sometimes") != std::string::npos);
    BOOST_TEST(message({"3", "uniform:5s:1s", 1}).find("MAX is below MIN") != std::string::npos);
    BOOST_TEST(message({"3", "exponential:-1", 1}).find("--think-time") != std::string::npos);
    BOOST_TEST(message({"3", "2h", 1}).find("at most 1h") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_conversation_keeps_its_memory_between_sessions) {
    conversation c;
    c.add("user") = "hello there";
    c.add("assistant") = "general kenobi";
    BOOST_TEST(c.size() == 2u);
    BOOST_TEST(c[1].role == "assistant");
    BOOST_TEST(c[1].text == "general kenobi");
    const char* memory = c[0].text.data();
    c.clear();
    BOOST_TEST(c.size() == 0u);
    std::string& t = c.add("user");
    BOOST_TEST(t.empty());
    t = "hi";
    BOOST_TEST(c[0].text.data() == memory);  // the same capacity, not a new allocation
}

BOOST_AUTO_TEST_CASE(an_agents_messages_reuse_their_memory_and_forget_their_calls) {
    conversation c;
    chat_message& call = c.add_message("assistant");
    call.calls.at(1)->arguments = "{\"query\": \"a long enough argument to leave the small-string buffer\"}";
    call.calls.at(0)->id = "call_0123456789abcdef0123456789";
    BOOST_TEST(call.calls.size() == 2u);  // index 1 brought index 0 with it
    const char* arguments = call.calls[1].arguments.data();
    c.clear();
    // The next session's first message is plain text, its strings' memory kept.
    chat_message& user = c.add_message("user");
    BOOST_TEST(user.calls.empty());
    BOOST_TEST(user.call_id.empty());
    tool_call_text* again = user.calls.at(1);
    BOOST_TEST(again->arguments.empty());  // emptied as it came back into use
    again->arguments = "{\"query\": \"another argument\"}";
    BOOST_TEST(again->arguments.data() == arguments);
    // A call index past any server's parallel calls is not kept.
    BOOST_TEST(user.calls.at(tool_call_list::most) == nullptr);
    BOOST_TEST(user.calls.size() == 2u);
}

BOOST_AUTO_TEST_CASE(tool_steps_widen_the_request_index_stride) {
    session_config config;
    config.turns = "uniform:2:5";
    config.tool_steps = 3;
    const session_plan plan(config);
    BOOST_TEST(plan.stride() == 5 * 4);  // each turn and its three tool steps
    BOOST_TEST(plan.request_index(2, 7) == 47u);
    config.tool_steps = -1;
    BOOST_CHECK_THROW(session_plan{config}, std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
