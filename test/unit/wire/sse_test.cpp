#include <boost/test/unit_test.hpp>

#include "openloop/wire/sse.hpp"

#include <cstdlib>
#include <new>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "count_allocations.hpp"
#include "printing.hpp"

BOOST_AUTO_TEST_SUITE(unit_sse)

using test_alloc::allocations;

namespace {

using openloop::sse_error;
using openloop::sse_event;
using openloop::sse_parser;

struct parse_result {
    std::vector<std::string> events;  // "type|id|data" per event
    std::size_t comments = 0;
    bool in_event = false;
    sse_error error = sse_error::none;
    bool operator==(const parse_result&) const = default;
};

std::ostream& operator<<(std::ostream& os, const parse_result& r) {
    os << "{events:[";
    for (const auto& e : r.events)
        os << '"' << e << "\",";
    return os << "] comments:" << r.comments << " in_event:" << r.in_event
              << " error:" << static_cast<int>(r.error) << '}';
}

// Parses a stream delivered in the given slices.
parse_result parse(const std::vector<std::string_view>& slices, std::size_t max_bytes = 0) {
    sse_parser p;
    if (max_bytes)
        p.set_max_event_bytes(max_bytes);
    parse_result r;
    std::size_t returned = 0;
    for (const auto s : slices)
        returned += p.feed(s, [&](const sse_event& e) {
            r.events.push_back(std::string(e.type) + '|' + std::string(e.id) + '|' + std::string(e.data));
        });
    BOOST_REQUIRE_EQUAL(returned, r.events.size());
    BOOST_REQUIRE_EQUAL(p.events(), r.events.size());
    r.comments = p.comments();
    r.in_event = p.in_event();
    r.error = p.error();
    return r;
}

parse_result parse(std::string_view s) { return parse(std::vector<std::string_view>{s}); }

std::vector<std::string> data_only(const parse_result& r) {
    std::vector<std::string> out;
    for (const auto& e : r.events)
        out.push_back(e.substr(e.find('|', e.find('|') + 1) + 1));
    return out;
}

// Every way of delivering the stream must give what the unsplit parse gives:
// each single split point, byte by byte, every pair of split points for short
// streams, and random multi-splits with a fixed seed.
void check_split_invariance(std::string_view s) {
    const parse_result whole = parse(s);
    std::size_t mismatches = 0;
    std::string first;
    auto check = [&](const std::vector<std::string_view>& slices, const std::string& how) {
        const parse_result got = parse(slices);
        if (got != whole && mismatches++ == 0) {
            std::ostringstream os;
            os << how << ": " << got;
            first = os.str();
        }
    };

    for (std::size_t i = 0; i <= s.size(); ++i)
        check({s.substr(0, i), s.substr(i)}, "split at " + std::to_string(i));

    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < s.size(); ++i)
        bytes.push_back(s.substr(i, 1));
    check(bytes, "byte by byte");

    if (s.size() <= 200)
        for (std::size_t i = 0; i <= s.size(); ++i)
            for (std::size_t j = i; j <= s.size(); ++j)
                check({s.substr(0, i), s.substr(i, j - i), s.substr(j)},
                      "split at " + std::to_string(i) + "," + std::to_string(j));

    std::mt19937 rng(12345);
    for (int round = 0; round < 300; ++round) {
        std::vector<std::string_view> slices;
        std::size_t pos = 0;
        std::string how = "random split";
        while (pos < s.size()) {
            const std::size_t n = std::uniform_int_distribution<std::size_t>(0, 40)(rng);
            const std::size_t take = std::min(n, s.size() - pos);
            slices.push_back(s.substr(pos, take));
            how += ' ' + std::to_string(take);
            pos += take;
        }
        check(slices, how);
    }
    BOOST_TEST(mismatches == 0u, "first mismatch: " << first << " expected " << whole);
}

const std::string vllm_chat =
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1718000000,"
    "\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[{\"index\":0,\"delta\":"
    "{\"role\":\"assistant\",\"content\":\"\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1718000000,"
    "\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[{\"index\":0,\"delta\":"
    "{\"content\":\"Hello\"},\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1718000000,"
    "\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[{\"index\":0,\"delta\":"
    "{\"content\":\" w\xc3\xb6rld\"},\"logprobs\":null,\"finish_reason\":\"stop\",\"stop_reason\":null}]}\n\n"
    "data: {\"id\":\"chatcmpl-9\",\"object\":\"chat.completion.chunk\",\"created\":1718000000,"
    "\"model\":\"meta-llama/Llama-3.1-8B-Instruct\",\"choices\":[],\"usage\":{\"prompt_tokens\":12,"
    "\"total_tokens\":14,\"completion_tokens\":2}}\n\n"
    "data: [DONE]\n\n";

const std::string completions =
    "data: {\"id\":\"cmpl-3\",\"object\":\"text_completion\",\"created\":1718000000,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"text\":\" Once\",\"logprobs\":null,\"finish_reason\":null}]}\n\n"
    "data: {\"id\":\"cmpl-3\",\"object\":\"text_completion\",\"created\":1718000000,\"model\":\"m\","
    "\"choices\":[{\"index\":0,\"text\":\" upon\",\"logprobs\":null,\"finish_reason\":\"length\"}]}\n\n"
    "data: [DONE]\n\n";

std::string with_crlf(std::string_view s) {
    std::string out;
    for (const char c : s) {
        if (c == '\n')
            out += '\r';
        out += c;
    }
    return out;
}

std::string with_cr(std::string_view s) {
    std::string out(s);
    for (char& c : out)
        if (c == '\n')
            c = '\r';
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(vllm_chat_stream) {
    const auto r = parse(vllm_chat);
    BOOST_TEST_REQUIRE(r.events.size() == 5u);
    const auto data = data_only(r);
    BOOST_TEST(data[0].find("\"role\":\"assistant\"") != std::string::npos);
    BOOST_TEST(data[0].front() == '{');
    BOOST_TEST(data[0].back() == '}');
    BOOST_TEST(data[1].find("Hello") != std::string::npos);
    BOOST_TEST(data[3].find("\"choices\":[]") != std::string::npos);
    BOOST_TEST(data[4] == "[DONE]");
    BOOST_TEST(r.events[4] == "||[DONE]");
    BOOST_TEST(r.comments == 0u);
    BOOST_TEST(!r.in_event);
    BOOST_TEST(r.error == sse_error::none);
    check_split_invariance(vllm_chat);
}

BOOST_AUTO_TEST_CASE(completions_stream) {
    const auto data = data_only(parse(completions));
    BOOST_TEST_REQUIRE(data.size() == 3u);
    BOOST_TEST(data[0].find("\" Once\"") != std::string::npos);
    BOOST_TEST(data[2] == "[DONE]");
    check_split_invariance(completions);
}

BOOST_AUTO_TEST_CASE(crlf_and_lone_cr_line_endings) {
    const auto lf = parse(vllm_chat);
    const auto crlf = with_crlf(vllm_chat);
    const auto cr = with_cr(vllm_chat);
    BOOST_TEST(parse(crlf) == lf);
    BOOST_TEST(parse(cr) == lf);
    check_split_invariance(crlf);
    check_split_invariance(cr);

    // Short streams get every pair of split points, which puts a slice boundary
    // between each CR and LF and around every lone CR.
    const std::string mixed = "data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\ndata: e\r\n\n: x\r\r\n";
    const auto r = parse(mixed);
    BOOST_TEST(data_only(r) == (std::vector<std::string>{"a", "b", "c", "d\ne"}), boost::test_tools::per_element());
    BOOST_TEST(r.comments == 1u);
    check_split_invariance(mixed);

    // CR then LF is one line ending, but LF then CR is two (an empty line).
    BOOST_TEST(data_only(parse("data: a\n\rdata: b\n\n")) == (std::vector<std::string>{"a", "b"}),
               boost::test_tools::per_element());
    BOOST_TEST(parse("data: a\r\ndata: b\r\n\r\n").events.size() == 1u);
}

BOOST_AUTO_TEST_CASE(keep_alive_comments) {
    const std::string s = ": keep-alive\n\n"
                          "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n"
                          ": in the middle of an event\n"
                          "\n"
                          ":\n"
                          ": OPENROUTER PROCESSING\n\n"
                          "data: [DONE]\n\n";
    const auto r = parse(s);
    BOOST_TEST(data_only(r) == (std::vector<std::string>{"{\"choices\":[{\"delta\":{\"content\":\"x\"}}]}", "[DONE]"}),
               boost::test_tools::per_element());
    BOOST_TEST(r.comments == 4u);
    check_split_invariance(s);
    check_split_invariance(with_crlf(s));
}

BOOST_AUTO_TEST_CASE(multi_line_data) {
    const std::string s = "data: first\ndata: second\ndata:third\ndata:  two spaces\n\n"
                          "data\n\n"
                          "data:\n\n"
                          "data\ndata\n\n"
                          "data: {\"a\":\ndata: 1}\n\n";
    const auto r = parse(s);
    BOOST_TEST(data_only(r) ==
                   (std::vector<std::string>{"first\nsecond\nthird\n two spaces", "", "", "\n", "{\"a\":\n1}"}),
               boost::test_tools::per_element());
    check_split_invariance(s);
}

BOOST_AUTO_TEST_CASE(event_id_and_retry_fields) {
    const std::string s = "retry: 2500\n"
                          "event: error\n"
                          "data: {\"error\":{\"message\":\"boom\"}}\n\n"
                          "id: 7\n"
                          "data: after\n\n"
                          "event: ignored-without-data\n\n"
                          "data: keeps id\n\n"
                          "id\n"
                          "unknown: field\n"
                          "data: id cleared\n\n";
    sse_parser p;
    std::vector<std::string> events;
    p.feed(s, [&](const sse_event& e) {
        events.push_back(std::string(e.type) + '|' + std::string(e.id) + '|' + std::string(e.data));
    });
    BOOST_TEST(events ==
                   (std::vector<std::string>{"error||{\"error\":{\"message\":\"boom\"}}", "|7|after", "|7|keeps id",
                                             "||id cleared"}),
               boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(p.retry_ms().has_value());
    BOOST_TEST(*p.retry_ms() == 2500u);
    check_split_invariance(s);

    // Invalid retry values and ids containing NUL are ignored, per spec.
    sse_parser q;
    const std::string bad = std::string("retry: 12a\nretry: -1\nid: 3\nid: x\0y\ndata: d\n\n", 44);
    events.clear();
    q.feed(bad, [&](const sse_event& e) { events.push_back(std::string(e.id) + '|' + std::string(e.data)); });
    BOOST_TEST(!q.retry_ms().has_value());
    BOOST_TEST(events == (std::vector<std::string>{"3|d"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(llama_cpp_error_line_is_an_error_event) {
    // llama.cpp's streamed error: an `error:` line, then [DONE]. Other
    // unknown fields are still ignored.
    const std::string s = "data: {\"a\":1}\n\n"
                          "error: {\"code\":400,\"message\":\"the request exceeds the available context size\"}\n\n"
                          "unknown: field\n\n"
                          "data: [DONE]\n\n";
    sse_parser p;
    std::vector<std::string> events;
    p.feed(s, [&](const sse_event& e) { events.push_back(std::string(e.type) + '|' + std::string(e.data)); });
    BOOST_TEST(events ==
                   (std::vector<std::string>{"|{\"a\":1}",
                                             "error|{\"code\":400,\"message\":\"the request exceeds the available context size\"}",
                                             "|[DONE]"}),
               boost::test_tools::per_element());
    check_split_invariance(s);
}

BOOST_AUTO_TEST_CASE(string_view_callback_and_return_value) {
    sse_parser p;
    std::vector<std::string> got;
    auto on = [&](std::string_view d) { got.emplace_back(d); };
    BOOST_TEST(p.feed("data: a\n\ndata: b\n", on) == 1u);
    BOOST_TEST(p.in_event());
    BOOST_TEST(p.feed("\ndata: c\n\n", on) == 2u);
    BOOST_TEST(!p.in_event());
    BOOST_TEST(p.events() == 3u);
    BOOST_TEST(got == (std::vector<std::string>{"a", "b", "c"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(byte_order_mark) {
    const std::string bom = "\xEF\xBB\xBF";
    const std::string s = bom + "data: x\n\n";
    BOOST_TEST(data_only(parse(s)) == (std::vector<std::string>{"x"}), boost::test_tools::per_element());
    check_split_invariance(s);

    // Only at stream start: a second BOM is part of the field name, which is then unknown.
    BOOST_TEST(parse(bom + bom + "data: x\n\n").events.empty());
    // A partial BOM is not skipped: its bytes start the first line.
    const auto partial = "\xEF\xBB" + std::string("data: x\n\ndata: y\n\n");
    BOOST_TEST(data_only(parse(partial)) == (std::vector<std::string>{"y"}), boost::test_tools::per_element());
    check_split_invariance(partial);
    const auto partial_comment = "\xEF" + std::string(":c\n");
    BOOST_TEST(parse(partial_comment).comments == 0u);
    check_split_invariance(partial_comment);
}

BOOST_AUTO_TEST_CASE(stream_ending_mid_event) {
    BOOST_TEST(parse("data: x\n").in_event);
    BOOST_TEST(parse("data: x").in_event);
    BOOST_TEST(parse("da").in_event);
    BOOST_TEST(parse("event: e\n").in_event);
    BOOST_TEST(parse("data: x\r").in_event);
    BOOST_TEST(!parse("data: x\n\n").in_event);
    BOOST_TEST(!parse("data: x\r\r").in_event);
    BOOST_TEST(!parse(": keep-alive\n").in_event);
    BOOST_TEST(!parse("").in_event);
    BOOST_TEST(!parse("event: e\n\n").in_event);
    // A truncated real stream: everything before the cut is delivered.
    const std::string cut = vllm_chat.substr(0, vllm_chat.find("data: [DONE]") + 8);
    const auto r = parse(cut);
    BOOST_TEST(r.in_event);
    BOOST_TEST(r.events.size() == 4u);
}

BOOST_AUTO_TEST_CASE(oversize_event_is_an_error) {
    // Data of exactly the limit is fine; one byte more, accumulated over lines
    // that are each well within it, is not.
    const auto ok = parse({"data:0123456789\ndata:012345678\n\n"}, 20);
    BOOST_TEST(ok.error == sse_error::none);
    BOOST_TEST(ok.events.size() == 1u);
    const std::string big = "data:0123456789\ndata:0123456789\n\ndata: later\n\n";
    const auto r = parse({big}, 20);
    BOOST_TEST(r.error == sse_error::event_too_large);
    BOOST_TEST(r.events.empty());

    // One endless line, delivered byte by byte, is stopped too.
    const std::string endless(100, 'x');
    std::vector<std::string_view> bytes;
    for (std::size_t i = 0; i < endless.size(); ++i)
        bytes.push_back(std::string_view(endless).substr(i, 1));
    BOOST_TEST(parse(bytes, 16).error == sse_error::event_too_large);
    BOOST_TEST(parse({endless}, 16).error == sse_error::event_too_large);

    // The error sticks until reset(), which keeps the limit.
    sse_parser p;
    p.set_max_event_bytes(20);
    std::size_t n = 0;
    auto count = [&](std::string_view) { ++n; };
    p.feed(big, count);
    BOOST_TEST(p.feed("data: x\n\n", count) == 0u);
    BOOST_TEST(n == 0u);
    p.reset();
    BOOST_TEST(p.error() == sse_error::none);
    BOOST_TEST(p.max_event_bytes() == 20u);
    BOOST_TEST(p.feed("data: x\n\n", count) == 1u);
    BOOST_TEST(p.feed(big, count) == 0u);
    BOOST_TEST(p.error() == sse_error::event_too_large);
}

BOOST_AUTO_TEST_CASE(reset_starts_a_new_stream) {
    sse_parser p;
    std::vector<std::string> got;
    auto on = [&](std::string_view d) { got.emplace_back(d); };
    p.feed(": c\nid: 1\ndata: half", on);
    BOOST_TEST(p.in_event());
    BOOST_TEST(p.comments() == 1u);
    p.reset();
    BOOST_TEST(!p.in_event());
    BOOST_TEST(p.comments() == 0u);
    // The BOM is skipped again at the new stream's start.
    p.feed("\xEF\xBB\xBF" "data: fresh\n\n", [&](const sse_event& e) {
        got.push_back(std::string(e.id) + '|' + std::string(e.data));
    });
    BOOST_TEST(got == (std::vector<std::string>{"|fresh"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(steady_state_does_not_allocate) {
    sse_parser p;
    std::size_t n = 0;
    auto count = [&](std::string_view d) { n += d.size(); };
    // Split so that lines straddle slices and use the carry-over buffer too.
    const std::string_view s = vllm_chat;
    auto feed_stream = [&] {
        for (std::size_t pos = 0; pos < s.size(); pos += 37)
            p.feed(s.substr(pos, 37), count);
    };
    feed_stream();
    p.reset();
    const std::size_t before = allocations;
    for (int i = 0; i < 100; ++i)
        feed_stream();
    BOOST_TEST(allocations - before == 0u);
    BOOST_TEST(p.events() == 500u);
    BOOST_TEST(n > 0u);
}

BOOST_AUTO_TEST_SUITE_END()
