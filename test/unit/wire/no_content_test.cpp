#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"
#include "recorded_streams.hpp"

#include "openloop/wire/error_text.hpp"

BOOST_AUTO_TEST_SUITE(unit_no_content)

using namespace reader_feed;
using namespace recorded;

// A 200 that is not a stream, or that streams nothing, is not a success.

BOOST_AUTO_TEST_CASE(content_types) {
    BOOST_TEST((classify_content_type("text/event-stream") == body_type::event_stream));
    BOOST_TEST((classify_content_type("Text/Event-Stream; charset=utf-8") == body_type::event_stream));
    BOOST_TEST((classify_content_type("  text/event-stream ;charset=UTF-8") == body_type::event_stream));
    BOOST_TEST((classify_content_type("") == body_type::missing));
    BOOST_TEST((classify_content_type("   ") == body_type::missing));
    BOOST_TEST((classify_content_type("text/html; charset=utf-8") == body_type::other));
    BOOST_TEST((classify_content_type("application/json") == body_type::other));
    BOOST_TEST((classify_content_type("text/event-streams") == body_type::other));
    BOOST_TEST((classify_content_type("text/event") == body_type::other));
}

BOOST_AUTO_TEST_CASE(a_login_page_is_no_content) {
    const std::string html = "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>data: x\n\n</body></html>";
    const fed f = feed_whole(200, html, none, "text/html; charset=utf-8");
    BOOST_TEST(f.outcome == error_class::no_content);
    BOOST_TEST(f.events.size() == 1u);  // the headers only: the body is not read as SSE
    BOOST_TEST(f.at_body_end);          // the framing was fine: the connection may go on
    check_splits(200, html, none, "text/html");
}

BOOST_AUTO_TEST_CASE(a_completion_that_ignored_stream_true_is_no_content) {
    const std::string completion =
        R"({"id":"c","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})";
    BOOST_TEST(feed_whole(200, completion, none, "application/json").outcome == error_class::no_content);
    // Without a Content-Type the body is tried as SSE: JSON holds no event.
    BOOST_TEST(feed_whole(200, completion, none, "").outcome == error_class::no_content);
}

BOOST_AUTO_TEST_CASE(a_missing_content_type_is_read_as_sse) {
    const fed f = feed_whole(200, vllm_chat, none, "");
    BOOST_TEST(f.outcome == none);
    BOOST_TEST((f.events.back().kind == event_kind::done));
    check_splits(200, vllm_chat, none, "");
}

BOOST_AUTO_TEST_CASE(a_stream_without_a_content_chunk_is_no_content) {
    // An empty body.
    const fed empty = feed(200, "", {0});
    BOOST_TEST(empty.outcome == error_class::no_content);
    // Only [DONE], or a role chunk, a finish and a usage chunk: nothing generated.
    BOOST_TEST(feed_whole(200, "data: [DONE]\n\n").outcome == error_class::no_content);
    const std::string nothing = "data: " SIM_HEAD R"([{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]})"
                                "\n\ndata: " SIM_HEAD R"([{"index":0,"delta":{},"finish_reason":"stop"}]})"
                                "\n\ndata: [DONE]\n\n";
    BOOST_TEST(feed_whole(200, nothing).outcome == error_class::no_content);
    check_splits(200, nothing);
    // Only comments.
    BOOST_TEST(feed_whole(200, ": keep-alive\n\n: keep-alive\n\n").outcome == error_class::no_content);
}

BOOST_AUTO_TEST_CASE(a_body_kept_for_its_message_is_bounded) {
    // An endless page is given up at the cap, without its end: the connection is not reused.
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(1);
    const auto ignore = [](const event&) {};
    reader.headers(200, "text/html", 0, ignore);
    const std::string kib(1024, 'x');
    int reads = 0;
    while (!reader.finished() && reads < 100) {
        reader.read({.bytes = kib, .t_ns = ++reads, .body_complete = false}, ignore);
    }
    BOOST_TEST(reader.finished());
    BOOST_TEST(reads == static_cast<int>(error_body_cap / kib.size()));
    BOOST_TEST(reader.outcome() == error_class::no_content);
    BOOST_TEST(!reader.ended_at_body_end());
    BOOST_TEST(reader.kept_body().size() == error_body_cap);
    BOOST_TEST(reader.content_type() == "text/html");
    // The same for an error status.
    reader.start(2);
    reader.headers(404, "application/json", 0, ignore);
    reader.read({.bytes = R"({"error":{"message":"gone"}})", .t_ns = 1, .body_complete = true}, ignore);
    BOOST_TEST(reader.outcome() == error_class::http_4xx);
    BOOST_TEST(reader.kept_body() == R"({"error":{"message":"gone"}})");
    BOOST_TEST(reader.content_type() == "application/json");
}

BOOST_AUTO_TEST_CASE(messages_of_failed_responses) {
    // OpenAI's (and vLLM's) error object, FastAPI's detail, a bare message, an error string.
    BOOST_TEST(body_message(R"({"error":{"message":"maximum context length is 32768 tokens","type":"BadRequestError"}})") ==
               "maximum context length is 32768 tokens");
    BOOST_TEST(body_message(R"({"object":"error","message":"The model `x` does not exist.","code":404})") ==
               "The model `x` does not exist.");
    BOOST_TEST(body_message(R"({"detail":"Not Found"})") == "Not Found");
    BOOST_TEST(body_message(R"({"detail":[{"loc":["body"],"msg":"field required"}]})") ==
               R"([{"loc":["body"],"msg":"field required"}])");
    BOOST_TEST(body_message(R"({"error":"Unauthorized"})") == "Unauthorized");
    // Anything else: the first bytes, as one printable line.
    BOOST_TEST(body_message("<html>\r\n<body>\tNo\x01 way\xc3\xa9</body></html>") == "<html> <body> No way?" "?</body></html>");
    BOOST_TEST(body_message(std::string(5000, 'a')).size() == body_snippet_bytes);
    BOOST_TEST(body_message("").empty());
    // What a 200 that was not a stream says.
    BOOST_TEST(response_failure_message(error_class::no_content, "text/html", "<p>Sign in</p>") ==
               "the server answered 200 with text/html, not an SSE stream: <p>Sign in</p>");
    BOOST_TEST(response_failure_message(error_class::no_content, "", "") ==
               "the server answered 200 with no content chunk");
    // A stream event that is no chunk: its first bytes, as one line.
    BOOST_TEST(response_failure_message(error_class::bad_chunk, "text/event-stream", "{\"choices\": [tru", true) ==
               "a stream event that is not a JSON chunk: {\"choices\": [tru");
    BOOST_TEST(response_failure_message(error_class::bad_chunk, "text/event-stream", "", true) ==
               "a stream event with no data, not a JSON chunk");
    BOOST_TEST(response_failure_message(error_class::http_4xx, "application/json",
                                        R"({"error":{"message":"Incorrect API key provided"}})") ==
               "Incorrect API key provided");
}

BOOST_AUTO_TEST_SUITE_END()
