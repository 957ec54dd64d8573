#include <boost/test/unit_test.hpp>

// Hostile servers whose HTTP is fine and whose stream is not: a 100 MB SSE
// line, a stream that never ends, a 200 that is not a stream, absurd usage
// figures, a million events that carry nothing, an error mid-stream. Each
// case runs the real `openloop run` against a raw server; see
// hostile_wire_test.cpp for what every case checks and the memory caps.

#include "hostile_case.hpp"
#include "hostile_server.hpp"
#include "hostile_sse.hpp"

#include <cstdint>
#include <string>

BOOST_AUTO_TEST_SUITE(it_hostile_stream)

using namespace std::chrono_literals;
using hostile::connection;
using hostile::hostile_case;
using hostile::request;
using hostile::five;
using hostile::small_rss_mib;
using hostile::operator+;

namespace {

constexpr const char* suite = "hostile_stream";

std::int64_t summary_int(const hostile_case& k, std::string_view key) {
    const auto* v = k.observed().summary.if_contains(key);
    return v && v->is_number() ? v->to_number<std::int64_t>() : -1;
}

// summary.json's error_messages keeps text among the messages of cls.
bool kept_message(const hostile_case& k, std::string_view cls, std::string_view text) {
    const auto* all = k.observed().summary.if_contains("error_messages");
    if (!all || !all->is_array()) return false;
    for (const auto& entry : all->get_array()) {
        const auto* o = entry.if_object();
        const auto* c = o ? o->if_contains("class") : nullptr;
        const auto* messages = o ? o->if_contains("messages") : nullptr;
        if (!c || !c->is_string() || c->get_string() != cls || !messages || !messages->is_array()) continue;
        for (const auto& m : messages->get_array())
            if (m.is_string() && m.get_string() == text) return true;
    }
    return false;
}

// One content chunk every 2 ms, forever.
bool endless(connection& c, const request&) {
    if (!c.send(hostile::sse_chunked_head) || !c.send_chunk(hostile::role_event())) return false;
    while (c.send_chunk(hostile::content_event()) && c.pause(2ms)) {
    }
    return false;
}

// Each response a chunked SSE stream made of body().
template <class Body>
hostile::script sse(Body body) {
    return [body](connection& c, const request&) { return hostile::send_sse_chunked(c, body()); };
}

std::string repeated(std::string_view piece, int times) {
    std::string s;
    s.reserve(piece.size() * static_cast<std::size_t>(times));
    for (int i = 0; i < times; ++i) s += piece;
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(sse_line_100mb) {
    hostile::server srv([](connection& c, const request&) {
        if (!c.send(hostile::sse_chunked_head) || !c.send_chunk("data: ")) return false;
        const std::string block(1 << 16, 'a');
        for (int i = 0; i < 1600 && c.send_chunk(block); ++i) {  // 100 MiB, no newline
        }
        return false;
    });
    // One at a time: the bound is then the fixed cost plus one connection's
    // SSE buffer (the event bound, 16 MiB, in a string of capacity <= 32 MiB);
    // holding the line would need 100 MiB more.
    hostile_case k({suite, "sse_line_100mb", "200 SSE whose first line is `data: ` and 100 MiB without a newline",
                    "bad_chunk", "the SSE event bound (16 MiB)", 15, small_rss_mib + 32});
    k.run(srv.url(), {"--concurrency", "1", "--num-requests", "3"});
    k.expect_outcome(3);
    k.check(srv.bytes_sent() < 3 * (100ll << 20),
            "the client hung up before reading each 100 MiB line (server sent " +
                std::to_string(srv.bytes_sent() >> 20) + " MiB)");
    k.check(k.first_message("bad_chunk").find("limit of 16 MiB per event") != std::string::npos,
            "the message names the 16 MiB limit, got '" + k.first_message("bad_chunk") + "'");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(sse_event_50mb) {
    hostile::server srv([](connection& c, const request&) {
        if (!c.send(hostile::sse_chunked_head)) return false;
        const std::string line = "data: " + std::string((1 << 20) - 7, 'a') + "\n";  // 1 MiB a line
        for (int i = 0; i < 50 && c.send_chunk(line); ++i) {  // one event of 50 lines, never ended
        }
        return false;
    });
    // Each line is well under the bound; the event's data, joined, is not.
    hostile_case k({suite, "sse_event_50mb", "200 SSE whose first event is 50 `data:` lines of 1 MiB each",
                    "bad_chunk", "the SSE event bound (16 MiB)", 15, small_rss_mib + 32});
    k.run(srv.url(), {"--concurrency", "1", "--num-requests", "3"});
    k.expect_outcome(3);
    k.check(k.first_message("bad_chunk").find("limit of 16 MiB per event") != std::string::npos,
            "the message names the 16 MiB limit, got '" + k.first_message("bad_chunk") + "'");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(endless_stream) {
    hostile::server srv(endless);
    hostile_case k({suite, "endless_stream", "200 SSE, a content chunk every 2 ms forever, never [DONE]",
                    "timeout_total", "--timeout 1s", 10, small_rss_mib});
    k.run(srv.url(), five + std::vector<std::string>{"--timeout", "1s"});
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(endless_stream_until_drain) {
    hostile::server srv(endless);
    hostile_case k({suite, "endless_stream_until_drain",
                    "200 SSE, a content chunk every 2 ms forever, never [DONE]; no request timeout",
                    "cancelled_at_end", "--drain 1s", 10, small_rss_mib});
    k.run(srv.url(), five + std::vector<std::string>{"--drain", "1s"});
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(html_200) {
    hostile::server srv([](connection& c, const request&) {
        const std::string page =
            "<!doctype html><html><head><title>Sign in</title></head><body><form action=\"/login\" method=\"post\">"
            "<input name=\"user\"><input name=\"password\" type=\"password\"><button>Sign in</button></form></body></html>";
        return c.send(hostile::head_with_length("HTTP/1.1 200 OK", "text/html; charset=utf-8", page.size()) + page);
    });
    hostile_case k({suite, "html_200", "200 text/html: a login page", "no_content", "the content type", 10,
                    small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(json_200) {
    hostile::server srv([](connection& c, const request&) {
        const std::string body =
            R"({"id":"chatcmpl-1","object":"chat.completion","model":"hostile","choices":[{"index":0,)"
            R"("message":{"role":"assistant","content":"word word word"},"finish_reason":"stop"}],)"
            R"("usage":{"prompt_tokens":16,"completion_tokens":3,"total_tokens":19}})";
        return c.send(hostile::head_with_length("HTTP/1.1 200 OK", "application/json", body.size()) + body);
    });
    hostile_case k({suite, "json_200", "200 application/json: a whole chat.completion, stream: true ignored",
                    "no_content", "the content type", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(sse_without_content) {
    hostile::server srv(sse([] {
        return hostile::role_event() + hostile::finish_event() + hostile::usage_event(hostile::usage("0")) +
               std::string(hostile::done_event);
    }));
    hostile_case k({suite, "sse_without_content", "200 SSE: role chunk, finish_reason, usage, [DONE]; no content",
                    "no_content", "the body's end", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(no_done_no_finish) {
    hostile::server srv(sse([] {
        return hostile::role_event() + hostile::content_event() + hostile::content_event() + hostile::content_event();
    }));
    hostile_case k({suite, "no_done_no_finish",
                    "200 SSE: three content chunks, then a clean end of body, no finish_reason, no [DONE]",
                    "stream_truncated", "the body's end", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(finish_without_done) {
    hostile::server srv(sse([] {
        return hostile::role_event() + hostile::content_event() + hostile::content_event() +
               hostile::content_event() + hostile::finish_event() + hostile::usage_event(hostile::usage("3"));
    }));
    hostile_case k({suite, "finish_without_done", "200 SSE: three content chunks, finish_reason, usage; no [DONE]",
                    "ok", "the body's end", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.check(summary_int(k, "total_output_tokens") == 15, "15 output tokens, from usage");
    k.server_saw(srv);
}

// One content chunk, then an error event: every request fails in
// server_error, and summary.json keeps the server's own message.
void error_mid_stream(const std::string& name, const std::string& input, const std::string& error_event,
                      const std::string& message) {
    hostile::server srv(sse([error_event] { return hostile::role_event() + hostile::content_event() + error_event; }));
    hostile_case k({suite, name, input, "server_error", "the error event; its message kept", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.check(kept_message(k, "server_error", message), "error_messages keeps \"" + message + "\"");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(error_mid_stream_object) {
    error_mid_stream("error_mid_stream", "200 SSE: one content chunk, then an error object",
                     hostile::event(R"({"error":{"message":"engine crashed","type":"internal_error","code":500}})"),
                     "engine crashed");
}

BOOST_AUTO_TEST_CASE(error_mid_stream_vllm) {
    error_mid_stream(
        "error_mid_stream_vllm", "200 SSE: one content chunk, then vLLM's error event (BadRequestError, code 400)",
        hostile::event(R"({"error":{"object":"error","message":"This model's maximum context length is 32768 tokens.",)"
                       R"("type":"BadRequestError","param":null,"code":400}})"),
        "This model's maximum context length is 32768 tokens.");
}

BOOST_AUTO_TEST_CASE(error_mid_stream_llama_cpp) {
    error_mid_stream("error_mid_stream_llama_cpp",
                     "200 SSE: one content chunk, then llama.cpp's `error: {...}` line (not a data line) and [DONE]",
                     R"(error: {"code":400,"message":"the request exceeds the available context size, try increasing it",)"
                     R"("type":"exceed_context_size_error"})" "\n\n" + std::string(hostile::done_event),
                     "the request exceeds the available context size, try increasing it");
}

BOOST_AUTO_TEST_CASE(error_mid_stream_event_type) {
    error_mid_stream("error_mid_stream_event_type",
                     "200 SSE: one content chunk, then `event: error` with a plain-text payload",
                     "event: error\ndata: upstream connection lost\n\n", "upstream connection lost");
}

// Absurd usage: the request completes, its usage is not believed (bad_usage),
// and its output is counted by content chunks: 3 per request.
void absurd_usage(const std::string& name, const std::string& input, std::string (*body)()) {
    hostile::server srv(sse(body));
    hostile_case k({suite, name, input, "ok", "bad_usage; output counted by chunks", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5, {"bad_usage"});
    k.check(summary_int(k, "bad_usage") == 5, "all 5 requests marked bad_usage");
    k.check(summary_int(k, "total_output_tokens") == 15, "15 output tokens, counted by chunks");
    k.server_saw(srv);
}

std::string three_chunks_then(std::string_view final_usage) {
    return hostile::role_event() + hostile::content_event() + hostile::content_event() + hostile::content_event() +
           hostile::finish_event() + hostile::usage_event(hostile::usage(final_usage)) +
           std::string(hostile::done_event);
}

BOOST_AUTO_TEST_CASE(usage_2147483647) {
    absurd_usage("usage_2147483647",
                 "continuous usage: completion_tokens 1, then 2147483647 from the second chunk on", [] {
                     const std::string big = hostile::usage("2147483647");
                     return hostile::role_event() + hostile::content_event(hostile::usage("1")) +
                            hostile::content_event(big) + hostile::content_event(big) + hostile::finish_event() +
                            hostile::usage_event(big) + std::string(hostile::done_event);
                 });
}

BOOST_AUTO_TEST_CASE(usage_4294967396) {
    absurd_usage("usage_4294967396", "final usage completion_tokens 4294967396 (2^32 + 100)",
                 [] { return three_chunks_then("4294967396"); });
}

BOOST_AUTO_TEST_CASE(usage_negative) {
    absurd_usage("usage_negative", "final usage completion_tokens -5", [] { return three_chunks_then("-5"); });
}

BOOST_AUTO_TEST_CASE(usage_fraction) {
    absurd_usage("usage_fraction", "final usage completion_tokens 1.5", [] { return three_chunks_then("1.5"); });
}

BOOST_AUTO_TEST_CASE(usage_decreasing) {
    absurd_usage("usage_decreasing", "continuous usage 1, 2, 3, then a final usage of 1", [] {
        return hostile::role_event() + hostile::content_event(hostile::usage("1")) +
               hostile::content_event(hostile::usage("2")) + hostile::content_event(hostile::usage("3")) +
               hostile::finish_event() + hostile::usage_event(hostile::usage("1")) + std::string(hostile::done_event);
    });
}

// A million events that carry nothing, then the rest of a stream: the count
// of tokens must not move, and the time they cost is bounded. said: the failure's
// message, when one is expected.
void million(const std::string& name, const std::string& input, const std::string& expected, std::string_view piece,
             const std::string& rest, const std::string& said = "") {
    const std::string body = repeated(piece, 1'000'000) + rest;
    hostile::server srv([&body](connection& c, const request&) { return hostile::send_sse_chunked(c, body); });
    hostile_case k({suite, name, input, expected, "the run's bound; nothing kept per event", 20, small_rss_mib});
    k.run(srv.url(), {"--rate", "20", "--num-requests", "2"});
    k.expect_outcome(2);
    if (expected == "ok") k.check(summary_int(k, "total_output_tokens") == 6, "6 output tokens: the empty events count for none");
    if (!said.empty())
        k.check(k.first_message(expected) == said, "the message says '" + said + "', got '" + k.first_message(expected) + "'");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(million_comments) {
    million("million_comments", "200 SSE: 1,000,000 comment events `:\\n\\n` (3 MB), then a clean 3-token stream",
            "ok", ":\n\n", three_chunks_then("3"));
}

BOOST_AUTO_TEST_CASE(million_blank_lines) {
    million("million_blank_lines", "200 SSE: 1,000,000 blank lines `\\n\\n` (2 MB), then a clean 3-token stream",
            "ok", "\n\n", three_chunks_then("3"));
}

BOOST_AUTO_TEST_CASE(million_empty_chunks) {
    million("million_empty_chunks",
            "200 SSE: 1,000,000 well-formed chunks `{\"choices\":[]}` (22 MB), then finish_reason and [DONE]; no content",
            "no_content", "data: {\"choices\":[]}\n\n", hostile::finish_event() + std::string(hostile::done_event));
}

BOOST_AUTO_TEST_CASE(million_empty_data) {
    million("million_empty_data",
            "200 SSE: 1,000,000 events `data: \\n\\n`, then a clean 3-token stream (an empty payload is not a chunk)",
            "bad_chunk", "data: \n\n", three_chunks_then("3"), "a stream event with no data, not a JSON chunk");
}

BOOST_AUTO_TEST_SUITE_END()
