#include <boost/test/unit_test.hpp>

#include "openloop/results/run_result.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "run_fixtures.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_error_messages_render)

using namespace openloop;
using namespace run_fixtures;

namespace {

// Every request of a run refused, with what the server said kept.
run_stats all_failed(error_class cls, int status, const std::string& message) {
    run_stats s;
    s.started = 10;
    s.failed = 10;
    s.failed_by_class[static_cast<std::size_t>(cls)] = 10;
    for (int i = 0; i < 10; ++i) s.messages.note(cls, status, message);
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(every_request_no_content_is_the_first_line) {
    const auto r = make_run_result(
        all_failed(error_class::no_content, 200, "the server answered 200 with text/html, not an SSE stream"), open_loop());
    BOOST_TEST(!r.validity.valid);
    BOOST_TEST(r.validity.reasons.front() ==
               "every request ended in no_content: the server answered 200 with text/html, not an SSE stream");
    const std::string table = format_table(r);
    BOOST_TEST(table.substr(0, table.find('\n')) ==
               "INVALID: every request ended in no_content: the server answered 200 with text/html, not an SSE stream");
    // Only when every request: one success and the usual reasons apply.
    run_stats some = all_failed(error_class::no_content, 200, "x");
    some.completed = 1;
    const auto partly = make_run_result(std::move(some), open_loop());
    BOOST_TEST(partly.validity.reasons.front().find("every request") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(messages_in_the_summary_and_under_the_tally) {
    run_stats s = healthy();
    s.failed = 2;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_4xx)] = 2;
    s.messages.note(error_class::http_4xx, 400, "maximum context length is 32768 tokens");
    s.messages.note(error_class::http_4xx, 400, std::string(500, 'y'));
    const auto r = make_run_result(std::move(s), open_loop());
    const auto j = summary_json(r);
    const auto& list = j.at("error_messages").as_array();
    BOOST_TEST_REQUIRE(list.size() == 1u);
    const auto& e = list[0].as_object();
    BOOST_TEST(e.at("class").as_string() == "http_4xx");
    BOOST_TEST(e.at("status").to_number<int>() == 400);
    BOOST_TEST(e.at("count").to_number<int>() == 2);
    BOOST_TEST(e.at("messages").as_array().size() == 2u);
    BOOST_TEST(e.at("messages").as_array()[0].as_string() == "maximum context length is 32768 tokens");
    BOOST_TEST(e.at("messages").as_array()[1].as_string().size() == error_messages::max_message_bytes);
    const std::string table = format_table(r);
    BOOST_TEST(table.find("\n  http_4xx 400          maximum context length is 32768 tokens\n") != std::string::npos, table);
    // A long message is cut to the table's width.
    const auto at = table.find("\n  http_4xx 400          yyy");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    const auto line = table.substr(at + 1, table.find('\n', at + 1) - at - 1);
    BOOST_TEST(line.size() == 120u);
    BOOST_TEST(line.substr(117) == "...");
}

BOOST_AUTO_TEST_SUITE_END()
