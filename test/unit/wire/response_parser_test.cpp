#include <boost/test/unit_test.hpp>

// The HTTP framing in front of the reader: a whole response (Content-Length
// or chunked) put through response_parser in any split gives the reader the
// status, the Content-Type and the de-chunked body, so the events equal the
// reader's own when fed the body directly.

#include "openloop/wire/response_parser.hpp"
#include "reader_feed.hpp"
#include "recorded_streams.hpp"

#include <boost/beast/http/error.hpp>

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_response_parser)

using namespace reader_feed;
namespace http = boost::beast::http;

namespace {

std::string with_length(std::string_view body, std::string_view type = sse_type) {
    return "HTTP/1.1 200 OK\r\nServer: x\r\nContent-Type: " + std::string(type) + "\r\nContent-Length: " +
           std::to_string(body.size()) + "\r\nX-Other: 1\r\n\r\n" + std::string(body);
}

std::string chunked(std::string_view body, std::size_t piece) {
    char size[32];
    std::string out = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (std::size_t at = 0; at < body.size(); at += piece) {
        const std::size_t n = std::min(piece, body.size() - at);
        std::snprintf(size, sizeof size, "%zx\r\n", n);
        out += size;
        out.append(body.substr(at, n));
        out += "\r\n";
    }
    return out + "0\r\n\r\n";
}

struct parsed {
    fed result;
    bool done = false;
    bool keep_alive = false;
    http::error err{};
    std::string location;  // the reader's redirect_location()
};

// Puts response through the parser in pieces starting at the given offsets,
// the read of piece j at t = j + 1, as the exchange does: what a put leaves
// is put again with the next piece.
parsed put(std::string_view response, const std::vector<std::size_t>& starts) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(7);
    parsed out;
    const auto emit = [&](const event& e) { out.result.events.push_back(e); };
    response_parser<decltype(emit)> parser(reader, emit);
    std::string pending;
    for (std::size_t j = 0; j < starts.size() && !parser.is_done(); ++j) {
        const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : response.size();
        pending.append(response.substr(starts[j], end - starts[j]));
        parser.at(static_cast<std::int64_t>(j + 1));
        boost::beast::error_code ec;
        std::size_t used = 0;
        while (used < pending.size() && !parser.is_done()) {
            const std::size_t n = parser.put(boost::asio::buffer(pending.data() + used, pending.size() - used), ec);
            used += n;
            if (ec == http::error::need_more) ec = {};
            if (ec || n == 0) break;
        }
        pending.erase(0, used);
        if (ec) {
            out.err = static_cast<http::error>(ec.value());
            return out;
        }
        if (parser.is_done()) reader.read({.bytes = {}, .t_ns = parser.at(), .body_complete = true}, emit);
    }
    out.done = parser.is_done();
    out.keep_alive = parser.keep_alive();
    out.result.outcome = reader.outcome();
    out.result.finished = reader.finished();
    out.result.at_body_end = reader.ended_at_body_end();
    out.result.status = reader.status();
    out.location = reader.redirect_location();
    return out;
}

// The reader's events when the whole response arrives in one read at t = 1:
// the headers then come at t = 1 too.
fed direct(std::string_view body) {
    fed f = feed_whole(200, body);
    for (event& e : f.events) e.t_ns = 1;
    return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(content_length_and_chunked_bodies_reach_the_reader_whole) {
    for (const std::string* body : {&recorded::vllm_chat, &recorded::llama_server, &recorded::vllm_completions}) {
        const fed want = direct(*body);
        for (const std::string& response : {with_length(*body), chunked(*body, 7), chunked(*body, 300)}) {
            const parsed got = put(response, {0});
            BOOST_TEST(got.done);
            BOOST_TEST(got.keep_alive);
            BOOST_TEST(same(got.result, want), got.result << " expected " << want);
        }
    }
}

// Split anywhere, the same events, each at the read that completed it.
BOOST_AUTO_TEST_CASE(every_split_gives_the_same_events) {
    const std::string response = chunked(recorded::vllm_chat, 61);
    const parsed whole = put(response, {0});
    BOOST_TEST_REQUIRE(whole.done);
    std::size_t mismatches = 0;
    for (std::size_t i = 1; i < response.size(); ++i) {
        const parsed two = put(response, {0, i});
        BOOST_TEST_REQUIRE(two.done);
        bool ok = two.result.outcome == whole.result.outcome && two.result.events.size() == whole.result.events.size();
        for (std::size_t k = 0; ok && k < two.result.events.size(); ++k) {
            event e = two.result.events[k];
            e.t_ns = whole.result.events[k].t_ns;  // times differ by which read finished each event
            ok = show(e) == show(whole.result.events[k]);
        }
        mismatches += !ok;
    }
    BOOST_TEST(mismatches == 0u);
    const parsed bytewise_result = put(response, bytewise(response.size()));
    BOOST_TEST(bytewise_result.done);
    BOOST_TEST(bytewise_result.result.events.size() == whole.result.events.size());
}

BOOST_AUTO_TEST_CASE(the_first_content_type_is_the_one_read) {
    const std::string response =
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Type: text/event-stream\r\nContent-Length: 2\r\n\r\n{}";
    const parsed got = put(response, {0});
    BOOST_TEST(got.done);
    BOOST_TEST(got.result.outcome == error_class::no_content);
}

BOOST_AUTO_TEST_CASE(a_redirect_keeps_its_location) {
    const std::string response = "HTTP/1.1 308 Permanent Redirect\r\nContent-Length: 6\r\n"
                                 "Location: http://gw.example/v1/chat/completions/\r\n\r\nMoved.";
    for (const auto& starts : {std::vector<std::size_t>{0}, bytewise(response.size())}) {
        const parsed got = put(response, starts);
        BOOST_TEST(got.done);
        BOOST_TEST(got.result.outcome == error_class::http_3xx);
        BOOST_TEST(got.location == "http://gw.example/v1/chat/completions/");
    }
    // Only a redirect's Location is kept; a long one is cut.
    const std::string ok = "HTTP/1.1 200 OK\r\nLocation: /elsewhere\r\nContent-Type: text/event-stream\r\n"
                           "Content-Length: " + std::to_string(recorded::vllm_chat.size()) + "\r\n\r\n" +
                           std::string(recorded::vllm_chat);
    BOOST_TEST(put(ok, {0}).location.empty());
    const std::string far = "HTTP/1.1 301 Moved\r\nLocation: /" + std::string(1000, 'a') + "\r\nContent-Length: 0\r\n\r\n";
    BOOST_TEST(put(far, {0}).location.size() == redirect_location_cap);
}

BOOST_AUTO_TEST_CASE(limits_and_bad_bytes_are_parser_errors) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    const auto ignore = [](const event&) {};
    {
        response_parser<decltype(ignore)> parser(reader, ignore);
        parser.header_limit(64);
        boost::beast::error_code ec;
        const std::string big = "HTTP/1.1 200 OK\r\nX: " + std::string(100, 'a') + "\r\n\r\n";
        parser.put(boost::asio::buffer(big), ec);
        BOOST_TEST((ec == http::error::header_limit));
    }
    {
        response_parser<decltype(ignore)> parser(reader, ignore);
        parser.body_limit(10);
        boost::beast::error_code ec;
        parser.put(boost::asio::buffer(with_length(std::string(20, 'x'))), ec);
        BOOST_TEST((ec == http::error::body_limit));
    }
    {
        response_parser<decltype(ignore)> parser(reader, ignore);
        boost::beast::error_code ec;
        parser.put(boost::asio::buffer(std::string("HTTP/9.9 200 OK\r\n\r\n")), ec);
        BOOST_TEST((ec == http::error::bad_version));
    }
}

BOOST_AUTO_TEST_SUITE_END()
