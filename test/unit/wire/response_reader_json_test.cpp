#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"

#include "openloop/wire/error_text.hpp"
#include "openloop/wire/json_body.hpp"

BOOST_AUTO_TEST_SUITE(unit_response_reader_json)

using namespace reader_feed;

// A request sent with "stream": false (and every embeddings request) is read
// in JSON mode: one body, scanned as it arrives, ends in one done event.

namespace {

constexpr std::string_view json_type = "application/json";
constexpr response_mode json = response_mode::json;

// vLLM 0.8's answers, as recorded (ids shortened).
constexpr std::string_view vllm_chat =
    R"({"id":"chatcmpl-5d0","object":"chat.completion","created":1733000000,"model":"m","choices":[{"index":0,)"
    R"("message":{"role":"assistant","reasoning_content":null,"content":"Héllo there, friend","tool_calls":[]},)"
    R"("logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":{"prompt_tokens":12,)"
    R"("total_tokens":16,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":8}},"prompt_logprobs":null})";
constexpr std::string_view vllm_completion =
    R"({"id":"cmpl-1","object":"text_completion","created":1733000000,"model":"m","choices":[{"index":0,)"
    R"("text":" one two three","logprobs":null,"finish_reason":"length"}],)"
    R"("usage":{"prompt_tokens":6,"total_tokens":9,"completion_tokens":3,"prompt_tokens_details":null}})";
constexpr std::string_view vllm_embedding =
    R"({"id":"embd-1","object":"list","created":1733000000,"model":"m","data":[{"index":0,"object":"embedding",)"
    R"("embedding":[0.0123,-0.5,1e-3,0.25]}],"usage":{"prompt_tokens":7,"total_tokens":7,"completion_tokens":0,)"
    R"("prompt_tokens_details":null}})";
// OpenAI's shape: no completion_tokens at all.
constexpr std::string_view openai_embedding =
    R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]},)"
    R"({"object":"embedding","index":1,"embedding":[0.3,0.4]}],"model":"text-embedding-3-small",)"
    R"("usage":{"prompt_tokens":9,"total_tokens":9}})";
constexpr std::string_view reasoning_and_tools =
    R"({"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,)"
    R"("reasoning_content":"think","reasoning":"think","tool_calls":[{"id":"c1","type":"function",)"
    R"("function":{"name":"get","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}],)"
    R"("usage":{"prompt_tokens":5,"completion_tokens":9}})";

std::string done_line(const fed& f) { return f.events.empty() ? "" : show(f.events.back()); }

}  // namespace

BOOST_AUTO_TEST_CASE(chat_completion_gives_one_done_with_usage_on_every_split) {
    const fed f = feed_whole(200, vllm_chat, none, json_type, json);
    // No chunk events: the done event carries completion, prompt and cached tokens.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "done t=1 a=4 b=12 v=8 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(f.at_body_end);
    BOOST_TEST(f.events.back().flags == done_unstreamed);
    check_splits(200, vllm_chat, none, json_type, json);
}

BOOST_AUTO_TEST_CASE(text_completion_and_embeddings_on_every_split) {
    BOOST_TEST(done_line(feed_whole(200, vllm_completion, none, json_type, json)) == "done t=1 a=3 b=6 v=-1 req=7");
    check_splits(200, vllm_completion, none, json_type, json);
    // An embeddings list generates nothing: 0 output tokens, whether or not usage says so.
    BOOST_TEST(done_line(feed_whole(200, vllm_embedding, none, json_type, json)) == "done t=1 a=0 b=7 v=-1 req=7");
    check_splits(200, vllm_embedding, none, json_type, json);
    BOOST_TEST(done_line(feed_whole(200, openai_embedding, none, json_type, json)) == "done t=1 a=0 b=9 v=-1 req=7");
    check_splits(200, openai_embedding, none, json_type, json);
}

// vLLM's /v1/audio/transcriptions unstreamed (response_format json): the heard text at the top
// level and a usage in seconds of audio, no token counts; the text is the answer, not a bad body.
BOOST_AUTO_TEST_CASE(a_transcriptions_text_is_its_answer) {
    constexpr std::string_view transcription = R"({"text":" The quick brown fox.","usage":{"type":"duration","seconds":3}})";
    const fed f = feed_whole(200, transcription, none, json_type, json);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(done_line(f) == "done t=1 a=-1 b=-1 v=-1 req=7");
    check_splits(200, transcription, none, json_type, json);
    json_body_scanner scanner;
    scanner.feed(transcription);
    const json_body_info b = scanner.finish();
    BOOST_TEST(b.has_text);
    BOOST_TEST(b.info.content_chars == 21u);
    // Nothing heard is an answer without content, as an empty completion is.
    const fed empty = feed_whole(200, R"({"text":"","usage":{"type":"duration","seconds":1}})", none, json_type, json);
    BOOST_TEST(empty.outcome == openloop::error_class::no_content);
}

BOOST_AUTO_TEST_CASE(scanner_counts_what_the_chunk_decoder_would) {
    json_body_scanner s;
    for (const std::string_view body : {vllm_chat, reasoning_and_tools, openai_embedding}) {
        s.reset();
        BOOST_TEST(s.feed(body));
        const json_body_info b = s.finish();
        if (body == vllm_chat) {
            BOOST_TEST((b.info.kind == chunk_kind::content));
            BOOST_TEST(b.info.content_chars == 19u);  // code points: é is one
            BOOST_TEST(b.info.finished);
            BOOST_TEST(b.info.choices == 1u);
        } else if (body == reasoning_and_tools) {
            // Reasoning counted once though sent under both names; the tool call's name and arguments.
            BOOST_TEST((b.info.kind == chunk_kind::content));
            BOOST_TEST(b.info.reasoning_chars == 5u);
            BOOST_TEST(b.info.content_chars == 5u + 3u + 7u);
        } else {
            BOOST_TEST(b.has_data);
            BOOST_TEST(b.data_items == 2u);
            BOOST_TEST(!b.has_choices);
        }
    }
}

BOOST_AUTO_TEST_CASE(a_body_cut_short_or_torn_fails_clearly) {
    const std::string_view cut = vllm_chat.substr(0, vllm_chat.size() / 2);
    // The HTTP framing said the body ended, but the JSON did not: not a whole answer.
    BOOST_TEST(feed_whole(200, cut, none, json_type, json).outcome == error_class::bad_chunk);
    check_splits(200, cut, none, json_type, json);
    // The connection broke first: the transport's class, as for a stream.
    BOOST_TEST(feed_whole(200, cut, error_class::stream_truncated, json_type, json).outcome == error_class::stream_truncated);
    // Over --max-body (Beast's limit): the parser's class stands.
    BOOST_TEST(feed_whole(200, cut, error_class::body_too_large, json_type, json).outcome == error_class::body_too_large);
    const std::string trailing = std::string(vllm_chat) + " \r\n";
    BOOST_TEST(feed_whole(200, trailing, none, json_type, json).outcome == none);
    const std::string garbage = std::string(vllm_chat) + "{}";
    BOOST_TEST(feed_whole(200, garbage, none, json_type, json).outcome == error_class::bad_chunk);
    check_splits(200, garbage, none, json_type, json);
    BOOST_TEST(feed_whole(200, "{}", none, json_type, json).outcome == error_class::bad_chunk);
    BOOST_TEST(feed_whole(200, "[1,2]", none, json_type, json).outcome == error_class::bad_chunk);
    BOOST_TEST(feed_whole(200, R"({"choices":{}})", none, json_type, json).outcome == error_class::bad_chunk);
}

BOOST_AUTO_TEST_CASE(a_large_body_is_scanned_not_held) {
    // 4 MiB of embedding values: read in 64 KiB pieces, only error_body_cap of it kept.
    std::string body = R"({"object":"list","data":[{"object":"embedding","index":0,"embedding":[)";
    while (body.size() < (4u << 20)) body += "0.0123456789,";
    body += R"(0.5]}],"usage":{"prompt_tokens":3,"total_tokens":3}})";
    std::vector<std::size_t> starts;
    for (std::size_t at = 0; at < body.size(); at += 64 * 1024) starts.push_back(at);
    const fed f = feed(200, body, starts, none, json_type, json);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(show(f.events.back()) == "done t=" + std::to_string(starts.size()) + " a=0 b=3 v=-1 req=7");
    BOOST_TEST(f.kept.size() <= error_body_cap);
}

BOOST_AUTO_TEST_CASE(the_wrong_content_type_for_the_mode_is_no_content) {
    // An SSE stream for a request sent with "stream": false.
    constexpr std::string_view sse = "data: {\"choices\":[{\"delta\":{\"content\":\"x\"}}]}\n\ndata: [DONE]\n\n";
    const fed f = feed_whole(200, sse, none, sse_type, json);
    BOOST_TEST(f.outcome == error_class::no_content);
    BOOST_TEST(f.events.size() == 1u);  // the headers only
    BOOST_TEST(f.kept == sse);
    BOOST_TEST(response_failure_message(error_class::no_content, sse_type, f.kept, false).find("\"stream\": false") !=
               std::string::npos);
    BOOST_TEST(feed_whole(200, "<html>Sign in</html>", none, "text/html", json).outcome == error_class::no_content);
    // The other way round: a JSON body for a streamed request, as before.
    BOOST_TEST(feed_whole(200, vllm_chat, none, json_type).outcome == error_class::no_content);
    // No Content-Type, or a +json one: read as what was asked for.
    BOOST_TEST(feed_whole(200, vllm_chat, none, "", json).outcome == none);
    BOOST_TEST(feed_whole(200, vllm_chat, none, "Application/Problem+JSON; charset=utf-8", json).outcome == none);
}

BOOST_AUTO_TEST_CASE(errors_and_empty_answers_keep_their_words) {
    constexpr std::string_view error_200 = R"({"object":"error","message":"out of memory","type":"InternalError","code":500})";
    const fed e = feed_whole(200, error_200, none, json_type, json);
    BOOST_TEST(e.outcome == error_class::server_error);
    BOOST_TEST(response_failure_message(e.outcome, "", e.kept, false) == "out of memory");
    BOOST_TEST(feed_whole(200, R"({"error":"overloaded"})", none, json_type, json).outcome == error_class::server_error);
    // An error status is kept for its message, as in stream mode.
    constexpr std::string_view bad = R"({"error":{"message":"max_tokens too large","code":400}})";
    const fed b = feed_whole(400, bad, none, json_type, json);
    BOOST_TEST(b.outcome == error_class::http_4xx);
    BOOST_TEST(b.kept == bad);
    // A completion that generated nothing.
    constexpr std::string_view empty =
        R"({"object":"text_completion","choices":[{"text":"","finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":0}})";
    BOOST_TEST(feed_whole(200, empty, none, json_type, json).outcome == error_class::no_content);
}

BOOST_AUTO_TEST_CASE(bad_usage_is_flagged_and_not_believed) {
    constexpr std::string_view body =
        R"({"object":"text_completion","choices":[{"text":"a b"}],"usage":{"prompt_tokens":3,"completion_tokens":-2}})";
    const fed f = feed_whole(200, body, none, json_type, json);
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(show(f.events.back()) == "done t=1 a=-1 b=3 v=-1 req=7");
    BOOST_TEST(f.events.back().flags == (done_unstreamed | done_bad_usage));
    constexpr std::string_view fractional =
        R"({"choices":[{"text":"a"}],"usage":{"prompt_tokens":3.0,"completion_tokens":"2"}})";
    const fed g = feed_whole(200, fractional, none, json_type, json);
    BOOST_TEST(show(g.events.back()) == "done t=1 a=-1 b=3 v=-1 req=7");
}

BOOST_AUTO_TEST_SUITE_END()
