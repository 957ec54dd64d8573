#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"
#include "recorded_streams.hpp"

#include "openloop/wire/chunk_scan.hpp"
#include "openloop/wire/error_text.hpp"
#include "openloop/wire/json_body.hpp"

BOOST_AUTO_TEST_SUITE(unit_responses_stream)

// The Responses API's stream (POST /v1/responses): typed events, no [DONE].
// Its deltas are content chunks, response.completed (or incomplete) is the
// end with the usage, response.failed and error events fail the request in
// the server's words, and a stream without its end was cut short.

using namespace reader_feed;
using namespace recorded;

namespace {

// The data of each event of a recorded body.
std::vector<std::string> payloads(const std::string& body) {
    std::vector<std::string> out;
    for (std::size_t at = 0; (at = body.find("data: ", at)) != std::string::npos;) {
        const std::size_t end = body.find('\n', at);
        out.push_back(body.substr(at + 6, end - at - 6));
        at = end;
    }
    return out;
}

bool same(const chunk_info& x, const chunk_info& y) {
    return x.kind == y.kind && x.content_chars == y.content_chars && x.reasoning_chars == y.reasoning_chars &&
           x.choices == y.choices && x.finished == y.finished && x.has_usage == y.has_usage &&
           x.prompt_tokens == y.prompt_tokens && x.completion_tokens == y.completion_tokens &&
           x.cached_tokens == y.cached_tokens && x.bad_usage == y.bad_usage && x.error_code == y.error_code;
}

std::string answer_of(std::string_view body) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    streamed_answer answer;
    reader.start(7, response_mode::stream, &answer);
    const auto ignore = [](const event&) {};
    reader.headers(200, sse_type, 0, ignore);
    read_completion r;
    r.bytes = body;
    r.t_ns = 1;
    r.body_complete = true;
    reader.read(r, ignore);
    return answer.text;
}

constexpr std::string_view json_type = "application/json";

// vLLM's non-streamed answer from a reasoning model (fields in its SDK's order).
constexpr std::string_view vllm_response_body =
    R"({"id":"resp_1","created_at":1733000000,"error":null,"incomplete_details":null,"instructions":null,)"
    R"("metadata":null,"model":"m","object":"response","output":[{"id":"rs_1","summary":[],"type":"reasoning",)"
    R"("content":[{"text":"Let me think","type":"reasoning_text"}],"encrypted_content":null,"status":null},)"
    R"({"id":"msg_1","content":[{"annotations":[],"text":"Héllo there","type":"output_text","logprobs":null}],)"
    R"("role":"assistant","status":"completed","type":"message"}],"parallel_tool_calls":true,"temperature":1.0,)"
    R"("tool_choice":"auto","tools":[],"top_p":1.0,"max_output_tokens":16,"reasoning":null,"status":"completed",)"
    R"("text":null,"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":8},"output_tokens":6,)"
    R"("output_tokens_details":{"reasoning_tokens":3},"total_tokens":18},"user":null})";

}  // namespace

BOOST_AUTO_TEST_CASE(vllm_stream_deltas_are_chunks_and_completed_its_end_on_every_split) {
    const fed f = feed_whole(200, vllm_responses);
    // The lifecycle and .done events move no clock; no per-chunk counts (no
    // continuous usage); the end carries response.usage.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=5 v=0 req=7", "chunk t=1 a=-1 b=6 v=0 req=7",
                                                     "chunk t=1 a=-1 b=1 v=0 req=7", "reasoning t=1 a=0 b=0 v=0 req=7", "done t=1 a=4 b=12 v=8 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == none);
    BOOST_TEST(f.at_body_end);
    check_splits(200, vllm_responses);
    check_splits(200, with_crlf(vllm_responses));
}

BOOST_AUTO_TEST_CASE(reasoning_deltas_count_and_incomplete_ends_the_stream) {
    const fed f = feed_whole(200, openai_responses_incomplete);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=8 v=0 req=7 thinking", "chunk t=1 a=-1 b=2 v=0 req=7",
                                                     "chunk t=1 a=-1 b=6 v=0 req=7", "reasoning t=1 a=12 b=0 v=0 req=7", "done t=1 a=16 b=20 v=0 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.outcome == none);
    check_splits(200, openai_responses_incomplete);
}

BOOST_AUTO_TEST_CASE(the_end_is_the_completed_event_not_the_body_end) {
    // The body goes on past response.completed (a comment) and ends a read
    // later: the stream ended with the event, as it does with [DONE].
    const std::size_t end = vllm_responses.size();
    const fed f = feed(200, vllm_responses + ": trailing\n\n", {0, end});
    BOOST_TEST(show(f.events.back()) == "done t=1 a=4 b=12 v=8 req=7");
    // A torn connection after it is no failure, as after [DONE].
    const fed torn = feed(200, vllm_responses, {0}, error_class::stream_truncated);
    BOOST_TEST(torn.outcome == none);
}

BOOST_AUTO_TEST_CASE(a_stream_without_its_completed_event_was_cut_short) {
    const std::string cut = vllm_responses.substr(0, vllm_responses.find("event: response.completed"));
    const fed f = feed_whole(200, cut);
    BOOST_TEST(f.outcome == error_class::stream_truncated);
    BOOST_TEST(f.events.size() == 4u);  // the headers and the three deltas, timed as they came
    check_splits(200, cut);
}

BOOST_AUTO_TEST_CASE(response_failed_and_error_events_fail_in_the_servers_words) {
    const fed failed = feed_whole(200, responses_failed);
    BOOST_TEST(failed.outcome == error_class::server_error);
    BOOST_TEST(body_message(failed.kept) == "The engine died unexpectedly.");
    check_splits(200, responses_failed);

    const fed error = feed_whole(200, responses_error_event);
    BOOST_TEST(error.outcome == error_class::server_error);
    BOOST_TEST(body_message(error.kept) == "Too many tokens");
    check_splits(200, responses_error_event);

    // Without its `event: error` line the data's type says it.
    const std::string bare = responses_error_event.substr(responses_error_event.find("data: {\"type\":\"error\""));
    BOOST_TEST(feed_whole(200, bare).outcome == error_class::server_error);
}

BOOST_AUTO_TEST_CASE(every_event_is_scanned_as_the_full_parse_decodes_it) {
    chunk_decoder d;
    for (const std::string* body : {&vllm_responses, &openai_responses_incomplete}) {
        for (const std::string& p : payloads(*body)) {
            const auto scanned = scan_chunk(p);
            BOOST_TEST_REQUIRE(scanned.has_value(), p);  // the fast path: no JSON value built
            BOOST_TEST(same(*scanned, d.decode_full(p)), p);
        }
    }
    const chunk_info end = d.decode(payloads(vllm_responses).back());
    BOOST_TEST((end.kind == chunk_kind::completed));
    BOOST_TEST(end.has_usage);
    BOOST_TEST(end.completion_tokens == 4);
    const chunk_info reasoning = d.decode(payloads(openai_responses_incomplete)[2]);
    BOOST_TEST((reasoning.kind == chunk_kind::content));
    BOOST_TEST(reasoning.reasoning_chars == 8u);
    // The whole text again in output_text.done is not generated output.
    BOOST_TEST((d.decode(payloads(vllm_responses)[7]).kind == chunk_kind::empty));
    // Failures are the full decoder's, which reads a numeric code where one is given.
    for (const std::string* body : {&responses_failed, &responses_error_event}) {
        const std::string p = payloads(*body).back();
        BOOST_TEST(!scan_chunk(p).has_value());
        BOOST_TEST((d.decode(p).kind == chunk_kind::error));
    }
    BOOST_TEST(d.decode(R"({"type":"error","code":503,"message":"busy"})").error_code == 503);
    // A usage figure that is not a count is bad, as in a chunk.
    const chunk_info bad = d.decode(R"({"type":"response.completed","response":{"usage":{"input_tokens":"x","output_tokens":3}}})");
    BOOST_TEST(bad.bad_usage);
    BOOST_TEST(bad.completion_tokens == 3);
}

BOOST_AUTO_TEST_CASE(a_session_collects_only_the_output_text) {
    BOOST_TEST(answer_of(vllm_responses) == "Hello w\xc3\xb6rld!");
    BOOST_TEST(answer_of(openai_responses_incomplete) == "Hi there");  // the reasoning summary is not the answer
}

BOOST_AUTO_TEST_CASE(a_non_streamed_response_on_every_split) {
    const fed f = feed_whole(200, vllm_response_body, none, json_type, response_mode::json);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7", "reasoning t=1 a=3 b=0 v=0 req=7", "done t=1 a=6 b=12 v=8 req=7"}),
               boost::test_tools::per_element());
    BOOST_TEST(f.events.back().flags == done_unstreamed);
    check_splits(200, vllm_response_body, none, json_type, response_mode::json);

    json_body_scanner s;
    s.feed(vllm_response_body);
    const json_body_info b = s.finish();
    BOOST_TEST(b.has_output);
    BOOST_TEST(b.info.content_chars == 23u);   // "Let me think" and "Héllo there"
    BOOST_TEST(b.info.reasoning_chars == 12u);  // the reasoning item's, whose type came after its content

    s.reset();
    s.feed(R"({"object":"response","output":[{"type":"function_call","call_id":"c1","name":"get","arguments":"{\"a\":1}"}],)"
           R"("usage":{"input_tokens":5,"output_tokens":9}})");
    const json_body_info call = s.finish();
    BOOST_TEST((call.info.kind == chunk_kind::content));
    BOOST_TEST(call.info.content_chars == 10u);
    BOOST_TEST(call.info.completion_tokens == 9);

    const std::string failed = R"({"id":"resp_2","object":"response","status":"failed","error":{"code":"server_error",)"
                               R"("message":"boom"},"output":[],"usage":null})";
    const fed f2 = feed_whole(200, failed, none, json_type, response_mode::json);
    BOOST_TEST(f2.outcome == error_class::server_error);
    BOOST_TEST(body_message(f2.kept) == "boom");
    // An output that is not a list is no answer.
    BOOST_TEST(feed_whole(200, R"({"object":"response","output":{}})", none, json_type, response_mode::json).outcome ==
               error_class::bad_chunk);
}

BOOST_AUTO_TEST_SUITE_END()
