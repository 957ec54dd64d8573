#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"
#include "recorded_streams.hpp"

#include "count_allocations.hpp"

#include "openloop/wire/error_text.hpp"

BOOST_AUTO_TEST_SUITE(unit_response_reader_failures)

using test_alloc::allocations;
using namespace reader_feed;
using namespace recorded;

// Every error class the reader produces, their precedence, and the ends of a stream.

BOOST_AUTO_TEST_CASE(server_error_object) {
    const fed f = feed_whole(200, vllm_error_mid_stream);
    // What came before the error stays; nothing after it counts.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=-1 b=3 v=0 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == error_class::server_error);
    BOOST_TEST(!f.at_body_end);
    check_splits(200, vllm_error_mid_stream);
    // TGI's shape.
    BOOST_TEST(feed_whole(200, content_chunk + "data: {\"error\":\"Request failed during generation\"}\n\n").outcome ==
               error_class::server_error);
}

BOOST_AUTO_TEST_CASE(an_error_in_the_stream_keeps_the_servers_message) {
    // vLLM: the error event's payload is kept, on every split, and the
    // failure's message is its error.message.
    const fed f = feed_whole(200, vllm_error_mid_stream);
    BOOST_TEST(f.kept ==
               R"({"error":{"object":"error","message":"The engine died unexpectedly.","type":"InternalServerError","param":null,"code":500}})");
    BOOST_TEST(response_failure_message(f.outcome, "", f.kept) == "The engine died unexpectedly.");
    // llama.cpp's shape, and TGI's error string.
    const auto message_of = [](const std::string& body) {
        const fed g = feed_whole(200, body);
        BOOST_TEST(g.outcome == error_class::server_error);
        return response_failure_message(g.outcome, "", g.kept);
    };
    BOOST_TEST(message_of(content_chunk +
                          "data: {\"error\":{\"code\":500,\"message\":\"context shift is disabled\",\"type\":\"server_error\"}}\n\n") ==
               "context shift is disabled");
    BOOST_TEST(message_of(content_chunk + "data: {\"error\":\"Request failed during generation\"}\n\n") ==
               "Request failed during generation");
    // `event: error` fails the stream whatever its payload, and says it.
    const std::string typed = content_chunk + "event: error\ndata: upstream went away\n\n" + "data: [DONE]\n\n";
    BOOST_TEST(message_of(typed) == "upstream went away");
    check_splits(200, typed);
    // llama.cpp's `error:` line and the [DONE] after it: a failure, not a completion.
    const std::string llama = content_chunk +
                              "error: {\"code\":400,\"message\":\"the request exceeds the available context size\","
                              "\"type\":\"exceed_context_size_error\"}\n\ndata: [DONE]\n\n";
    BOOST_TEST(message_of(llama) == "the request exceeds the available context size");
    check_splits(200, llama);
    // A huge error event is kept only up to the cap.
    const fed big = feed_whole(200, content_chunk + "data: {\"error\":\"" + std::string(3 * error_body_cap, 'e') + "\"}\n\n");
    BOOST_TEST(big.outcome == error_class::server_error);
    BOOST_TEST(big.kept.size() == error_body_cap);
    // A content chunk keeps nothing.
    BOOST_TEST(feed_whole(200, vllm_chat).kept.empty());
}

BOOST_AUTO_TEST_CASE(bad_chunk) {
    const fed f = feed_whole(200, sim_bad_chunk);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=-1 b=5 v=0 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == error_class::bad_chunk);
    check_splits(200, sim_bad_chunk);
    BOOST_TEST(feed_whole(200, "data: not json\n\n").outcome == error_class::bad_chunk);
    BOOST_TEST(feed_whole(200, "data: [1,2]\n\ndata: [DONE]\n\n").outcome == error_class::bad_chunk);
}

BOOST_AUTO_TEST_CASE(an_event_past_the_sse_bound_is_a_bad_chunk) {
    const std::string huge(sse_parser::default_max_event_bytes + 1, 'x');
    BOOST_TEST(feed_whole(200, content_chunk + "data: " + huge).outcome == error_class::bad_chunk);
    // Checked even after [DONE], as before this reader existed.
    BOOST_TEST(feed_whole(200, content_chunk + "data: [DONE]\n\ndata: " + huge).outcome == error_class::bad_chunk);
}

BOOST_AUTO_TEST_CASE(statuses_other_than_200) {
    const std::string json_error = R"({"object":"error","message":"rate limited","type":"RateLimitError","code":429})";
    for (const int status : {400, 401, 404, 413, 429, 201, 204}) {
        const fed f = feed_whole(status, json_error);
        BOOST_TEST(f.outcome == error_class::http_4xx, status);
        BOOST_TEST(f.at_body_end, status);
        BOOST_TEST(f.status == status);
    }
    for (const int status : {500, 502, 503, 504}) BOOST_TEST(feed_whole(status, json_error).outcome == error_class::http_5xx);
    // A redirect is not followed, and not counted as the client's error either.
    for (const int status : {301, 302, 303, 307, 308}) {
        const fed f = feed_whole(status, "<html>Moved</html>", none, "text/html");
        BOOST_TEST(f.outcome == error_class::http_3xx, status);
        BOOST_TEST(f.at_body_end, status);
    }
    // The body of an error answer is not read as a stream, whatever it holds.
    const fed sse_body = feed_whole(503, vllm_chat);
    BOOST_TEST(sse_body.events.size() == 1u);
    BOOST_TEST(sse_body.outcome == error_class::http_5xx);
    check_splits(429, json_error);
    // Broken before its end, the answer fails as the transport says.
    BOOST_TEST(feed_whole(500, json_error, error_class::stream_truncated).outcome == error_class::stream_truncated);
}

BOOST_AUTO_TEST_CASE(transport_failures_pass_through) {
    // Mid-stream (no [DONE] yet): the read's class is the outcome; chunks already seen stay.
    const std::string partial = vllm_chat.substr(0, vllm_chat.find("data: [DONE]"));
    for (const error_class c : {error_class::stream_truncated, error_class::timeout_first_token, error_class::timeout_idle,
                                error_class::timeout_total, error_class::body_too_large, error_class::cancelled,
                                error_class::io}) {
        const fed f = feed_whole(200, partial, c);
        BOOST_TEST(f.outcome == c);
        BOOST_TEST(f.finished);
        BOOST_TEST(!f.at_body_end);
        BOOST_TEST(f.events.size() == 4u);  // headers and three chunks, no done
    }
    check_splits(200, partial, error_class::stream_truncated);
}

BOOST_AUTO_TEST_CASE(a_failure_before_the_headers) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(3);
    int events = 0;
    read_completion r;
    r.error = error_class::timeout_first_token;
    reader.read(r, [&](const event&) { ++events; });
    BOOST_TEST(reader.finished());
    BOOST_TEST(reader.outcome() == error_class::timeout_first_token);
    BOOST_TEST(reader.status() == 0);
    BOOST_TEST(events == 0);
}

BOOST_AUTO_TEST_CASE(done_outranks_a_torn_connection) {
    // After [DONE] the stream has said everything: a reset is not a failure,
    // and the end is [DONE]'s time, not the failing read's.
    const fed f = feed(200, vllm_chat, {0, 10}, error_class::stream_truncated);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(!f.at_body_end);  // the connection is not reusable
    BOOST_TEST(show(f.events.back()) == "done t=2 a=4 b=12 v=8 req=7");
    check_splits(200, vllm_chat, error_class::cancelled);
    // A stream that failed before it ended at that read: what the transport says later is not heard.
    BOOST_TEST(feed_whole(200, vllm_error_mid_stream, error_class::stream_truncated).outcome ==
               error_class::server_error);
}

BOOST_AUTO_TEST_CASE(nothing_after_done_counts) {
    const fed f = feed_whole(200, sim_firehose_no_usage + content_chunk + "data: {broken\n\n");
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(f.events.size() == 5u);
}

BOOST_AUTO_TEST_CASE(failure_precedence) {
    // The first stream failure decides.
    BOOST_TEST(feed_whole(200, content_chunk + "data: {x\n\ndata: {\"error\":\"e\"}\n\n").outcome == error_class::bad_chunk);
    BOOST_TEST(feed_whole(200, content_chunk + "data: {\"error\":\"e\"}\n\ndata: {x\n\n").outcome ==
               error_class::server_error);
    // A transport failure in the same read as a bad chunk outranks it.
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(1);
    const auto ignore = [](const event&) {};
    reader.headers(200, "text/event-stream", 0, ignore);
    read_completion r;
    r.bytes = "data: {x\n\n";
    r.t_ns = 1;
    r.error = error_class::stream_truncated;
    reader.read(r, ignore);
    BOOST_TEST(reader.outcome() == error_class::stream_truncated);
    // A stream failure in the read that ended the body outranks the end.
    reader.start(2);
    reader.headers(200, "text/event-stream", 0, ignore);
    r.error = none;
    r.body_complete = true;
    reader.read(r, ignore);
    BOOST_TEST(reader.outcome() == error_class::bad_chunk);
    BOOST_TEST(!reader.ended_at_body_end());
}

BOOST_AUTO_TEST_CASE(a_body_ending_mid_event_without_an_end_is_truncated) {
    // An unterminated last event is never dispatched, and with neither [DONE]
    // nor a finish_reason the body's end cut the stream short.
    const std::string cut = content_chunk + "data: {\"choices\":[{\"delta\":{\"content\":\"lost\"}}]}";
    const fed f = feed_whole(200, cut);
    BOOST_TEST(f.outcome == error_class::stream_truncated);
    BOOST_TEST(!f.at_body_end);  // what the server sends next cannot be trusted
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "chunk t=1 a=-1 b=2 v=0 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, cut);
    // The same cut after a finish_reason (servers that send no [DONE]) is a complete stream.
    const std::string finished = content_chunk + "data: " SIM_HEAD
                                 R"([{"index":0,"delta":{},"finish_reason":"stop"}]})" "\n\ndata: {\"cho";
    const fed ok = feed_whole(200, finished);
    BOOST_TEST(ok.outcome == none);
    BOOST_TEST(ok.at_body_end);
    BOOST_TEST(show(ok.events.back()) == "done t=1 a=-1 b=-1 v=-1 req=7");
    check_splits(200, finished);
}

BOOST_AUTO_TEST_CASE(reads_after_the_end_are_ignored_and_start_forgets) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    std::vector<event> events;
    const auto emit = [&](const event& e) { events.push_back(e); };
    reader.start(1);
    reader.headers(200, "text/event-stream", 0, emit);
    read_completion r;
    r.bytes = vllm_chat;
    r.t_ns = 1;
    r.body_complete = true;
    reader.read(r, emit);
    const std::size_t n = events.size();
    r.bytes = content_chunk;
    r.error = error_class::io;
    reader.read(r, emit);
    BOOST_TEST(events.size() == n);
    BOOST_TEST(reader.outcome() == none);

    events.clear();
    reader.start(9);
    BOOST_TEST(!reader.finished());
    BOOST_TEST(!reader.streaming());
    reader.headers(200, "text/event-stream", 0, emit);
    r.bytes = vllm_chat;
    r.error = none;
    reader.read(r, emit);
    BOOST_TEST(events.size() == n);
    BOOST_TEST(events.back().request == 9u);
    BOOST_TEST(reader.streaming());
}

BOOST_AUTO_TEST_CASE(steady_state_reading_does_not_allocate) {
    // A long continuous-usage stream, read in 13-byte pieces so that lines
    // straddle reads.
    std::string body = "data: " SIM_HEAD R"([{"index":0,"delta":{"role":"assistant","content":""}}]})" "\n\n";
    for (int i = 1; i <= 400; ++i) {
        body += "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" token"},"logprobs":null,"finish_reason":null}],)";
        body += R"("usage":{"prompt_tokens":64,"total_tokens":)" + std::to_string(64 + i) +
                R"(,"completion_tokens":)" + std::to_string(i) + "}}\n\n";
    }
    body += "data: [DONE]\n\n";

    chunk_decoder decoder;
    response_reader reader(decoder);
    std::size_t chunks = 0;
    std::int64_t tokens = 0;
    const auto emit = [&](const event& e) {
        if (e.kind == event_kind::chunk) {
            ++chunks;
            tokens += e.a;
        }
    };
    const auto read_all = [&](std::uint64_t request) {
        reader.start(request);
        reader.headers(200, "text/event-stream", 0, emit);
        for (std::size_t pos = 0; pos < body.size(); pos += 13) {
            read_completion r;
            r.bytes = std::string_view(body).substr(pos, 13);
            r.t_ns = static_cast<std::int64_t>(pos);
            r.body_complete = pos + 13 >= body.size();
            reader.read(r, emit);
        }
    };
    read_all(1);  // warm-up: buffers grow to their working size
    BOOST_TEST_REQUIRE(reader.outcome() == none);
    const std::size_t before = allocations;
    read_all(2);
    BOOST_TEST(allocations - before == 0u);
    BOOST_TEST(reader.outcome() == none);
    BOOST_TEST(chunks == 800u);
    BOOST_TEST(tokens == 800);
}

// After [DONE] the response is complete, whatever its body's end does: the
// connection's worker then waits only briefly for that end (exchange.hpp).
BOOST_AUTO_TEST_CASE(said_done_once_the_stream_said_it_was_over) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(7);
    std::vector<event> events;
    const auto emit = [&](const event& e) { events.push_back(e); };
    reader.headers(200, sse_type, 0, emit);
    reader.read({.bytes = content_chunk, .t_ns = 1}, emit);
    BOOST_TEST(!reader.said_done());
    reader.read({.bytes = "data: [DONE]\n\n", .t_ns = 2}, emit);
    BOOST_TEST(reader.said_done());
    BOOST_TEST(!reader.finished());  // the body's end may still come, and the connection be reused
    reader.read({.bytes = {}, .t_ns = 3, .body_complete = false, .error = error_class::timeout_idle}, emit);
    BOOST_TEST(reader.outcome() == error_class::none);
    BOOST_TEST(reader.answered_ns() == 2);
    BOOST_TEST(!reader.ended_at_body_end());
    // An error status's body saying [DONE] says nothing.
    reader.start(8);
    reader.headers(503, sse_type, 0, emit);
    reader.read({.bytes = "data: [DONE]\n\n", .t_ns = 1}, emit);
    BOOST_TEST(!reader.said_done());
}

BOOST_AUTO_TEST_CASE(a_redirect_message_names_where_it_pointed) {
    const std::string m = redirect_message("http://gw.example/v1/\r\nX: y");
    BOOST_TEST(m.find("redirected to http://gw.example/v1/ X: y; openloop does not follow redirects") == 0u, m);
    BOOST_TEST(redirect_message("").find("redirected without a Location") == 0u);
}

BOOST_AUTO_TEST_SUITE_END()
