#include <boost/test/unit_test.hpp>

#include "openloop/measure/error_messages.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_error_messages)

using namespace openloop;

BOOST_AUTO_TEST_CASE(keeps_the_first_distinct_messages_per_kind) {
    error_messages m;
    m.note(error_class::http_4xx, 400, "maximum context length is 32768 tokens");
    m.note(error_class::http_4xx, 400, "maximum context length is 32768 tokens");
    m.note(error_class::http_4xx, 404, "The model `x` does not exist.");
    m.note(error_class::timeout_idle, 0, "");
    for (int i = 0; i < 10; ++i) m.note(error_class::http_4xx, 400, "message " + std::to_string(i));
    BOOST_TEST_REQUIRE(m.entries().size() == 3u);
    const auto* bad = m.find(error_class::http_4xx, 400);
    BOOST_TEST_REQUIRE(bad);
    BOOST_TEST(bad->count == 12u);
    BOOST_TEST(bad->messages == (std::vector<std::string>{"maximum context length is 32768 tokens", "message 0", "message 1"}),
               boost::test_tools::per_element());
    BOOST_TEST(m.find(error_class::http_4xx, 404)->messages.size() == 1u);
    BOOST_TEST(m.find(error_class::timeout_idle, 0)->count == 1u);
    BOOST_TEST(m.find(error_class::timeout_idle, 0)->messages.empty());
    BOOST_TEST(!m.find(error_class::http_5xx, 500));
}

BOOST_AUTO_TEST_CASE(bounded_whatever_the_server_sends) {
    error_messages m;
    const std::string huge(1 << 20, 'x');
    for (int status = 100; status < 600; ++status)
        for (int i = 0; i < 5; ++i) m.note(error_class::http_4xx, status, huge + std::to_string(i));
    BOOST_TEST(m.entries().size() == error_messages::max_keys);
    BOOST_TEST(m.unkept() == (500 - error_messages::max_keys) * 5);
    for (const auto& e : m.entries()) {
        BOOST_TEST(e.messages.size() == 1u);  // cut to the same first bytes: one distinct message
        for (const auto& s : e.messages) BOOST_TEST(s.size() == error_messages::max_message_bytes);
    }
}

BOOST_AUTO_TEST_CASE(messages_are_one_printable_line) {
    BOOST_TEST(printable_line("a\r\n\r\nb\tc\x7f" "d\xff", 100) == "a b c d?");
    BOOST_TEST(printable_line("  \n", 100).empty());
    BOOST_TEST(printable_line("abcdef", 3) == "abc");
    error_messages m;
    m.note(error_class::connect, 0, "\n\n");
    BOOST_TEST(m.find(error_class::connect, 0)->messages.empty());
}

BOOST_AUTO_TEST_SUITE_END()
