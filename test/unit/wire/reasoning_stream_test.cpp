// Thinking models' and tool calls' streams (test/data/streams/): the response
// reader splits each the same way however its body arrives, marks the chunks
// that only thought, carries the usage's reasoning tokens and the tool call to
// the done event; the request metrics then count thinking and answer apart.

#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"
#include "test_paths.hpp"

#include "openloop/measure/request_metrics.hpp"

#include <fstream>
#include <sstream>

using namespace reader_feed;

namespace {

std::string stream(const char* name) {
    const std::string path = std::string(openloop_test::source_dir) + "/test/data/streams/" + name;
    std::ifstream in(path, std::ios::binary);
    BOOST_TEST_REQUIRE(in.good(), "cannot read " << path);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// The reader's events replayed into a timeline as the reporter does, chunk k at k ms.
request_metrics measure(const fed& f, std::int64_t max_tokens = 100) {
    request_timeline r;
    r.max_tokens = static_cast<std::int32_t>(max_tokens);
    stream_usage usage;
    std::int64_t t = 0;
    for (const event& e : f.events) {
        if (e.kind == event_kind::chunk) r.add_chunk(t += 1'000'000, e.chunk_tokens(), (e.flags & chunk_reasoning) != 0);
        if (e.kind == event_kind::reasoning_usage) usage.reasoning_tokens = e.reasoning_tokens();
        if (e.kind != event_kind::done) continue;
        usage = {e.completion_tokens(), e.prompt_tokens(), e.cached_tokens(), (e.flags & done_bad_usage) != 0,
                 usage.reasoning_tokens};
        r.tool_call = (e.flags & done_tool_call) != 0;
    }
    return measure_request(r, usage);
}

}  // namespace

BOOST_AUTO_TEST_CASE(vllm_reasoning_with_details_and_a_straddling_step) {
    const std::string body = stream("vllm_reasoning.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=2 b=5 v=0 req=7 thinking",
                                                     "chunk t=1 a=3 b=14 v=0 req=7 thinking",
                                                     // thinking and answer in one delta: the answer has begun
                                                     "chunk t=1 a=3 b=21 v=0 req=7",
                                                     "chunk t=1 a=4 b=16 v=0 req=7",
                                                     "reasoning t=1 a=7 b=0 v=0 req=7", "done t=1 a=12 b=14 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.ttft == 1'000'000);
    BOOST_TEST(m.ttfa == 3'000'000);  // the third chunk is the first that answers
    BOOST_TEST(m.reasoning == 2'000'000);
    BOOST_TEST(m.reasoning_tokens == 7);
    BOOST_TEST(reasoning_source_name(m.reasoning_from) == "usage");
    BOOST_TEST(m.answer_tokens == 5);
    BOOST_TEST(!m.ended_thinking);
}

BOOST_AUTO_TEST_CASE(vllm_reasoning_content_counts_thinking_by_usage_deltas) {
    const std::string body = stream("vllm_reasoning_content.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=1 b=3 v=0 req=7 thinking",
                                                     "chunk t=1 a=3 b=14 v=0 req=7 thinking",
                                                     "chunk t=1 a=1 b=1 v=0 req=7", "chunk t=1 a=1 b=1 v=0 req=7",
                                                     "done t=1 a=6 b=14 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.reasoning_tokens == 4);
    BOOST_TEST(reasoning_source_name(m.reasoning_from) == "usage_deltas");
    BOOST_TEST(m.answer_tokens == 2);
    BOOST_TEST(m.ttfa == 3'000'000);
}

BOOST_AUTO_TEST_CASE(sglang_reasoning_content_is_estimated_from_thinking_chunks) {
    const std::string body = stream("sglang_reasoning_content.sse");
    const fed f = feed_whole(200, body);
    // The empty first delta and the empty last one move no clock.
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=5 v=0 req=7 thinking",
                                                     "chunk t=1 a=-1 b=7 v=0 req=7 thinking",
                                                     "chunk t=1 a=-1 b=3 v=0 req=7", "done t=1 a=7 b=9 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.reasoning_tokens == 2);
    BOOST_TEST(reasoning_source_name(m.reasoning_from) == "chunks");
    BOOST_TEST(m.answer_tokens == 5);
}

BOOST_AUTO_TEST_CASE(thinking_that_spent_max_tokens_never_answered) {
    const std::string body = stream("vllm_reasoning_cut.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(f.outcome == none);
    check_splits(200, body);
    const request_metrics m = measure(f, 3);
    BOOST_TEST(m.ended_thinking);
    BOOST_TEST(m.ttft == 1'000'000);
    BOOST_TEST(m.ttfa == -1);
    BOOST_TEST(m.reasoning == 1'000'000);  // first to last thinking chunk
    BOOST_TEST(m.reasoning_tokens == 3);
    BOOST_TEST(m.answer_tokens == 0);
    // An SLO on the answer's first token fails a request whose answer never came.
    goodput_slo slo;
    slo.ttfa_ms = 60'000;
    request_timeline r;
    BOOST_TEST(!meets(slo, r, m));
}

BOOST_AUTO_TEST_CASE(a_tool_call_is_an_answer) {
    const std::string body = stream("vllm_tool_calls.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=3 b=11 v=0 req=7", "chunk t=1 a=4 b=10 v=0 req=7",
                                                     "chunk t=1 a=3 b=7 v=0 req=7",
                                                     "done t=1 a=11 b=120 v=-1 req=7 tool_call"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.ttfa == m.ttft);
    BOOST_TEST(m.answer_tokens == 11);
    BOOST_TEST(reasoning_source_name(m.reasoning_from) == "none");
}

BOOST_AUTO_TEST_CASE(responses_reasoning_summary_then_the_answer) {
    const std::string body = stream("openai_responses_reasoning.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=14 v=0 req=7 thinking",
                                                     "chunk t=1 a=-1 b=7 v=0 req=7 thinking",
                                                     "chunk t=1 a=-1 b=2 v=0 req=7", "chunk t=1 a=-1 b=4 v=0 req=7",
                                                     "reasoning t=1 a=128 b=0 v=0 req=7", "done t=1 a=150 b=20 v=0 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f, 0);
    BOOST_TEST(m.reasoning_tokens == 128);  // hidden thinking counts too: the summary is not the thinking
    BOOST_TEST(m.answer_tokens == 22);
    BOOST_TEST(m.ttfa == 3'000'000);
}

// The phases' ITL: each interval belongs to the phase of the chunk that ends it.
BOOST_AUTO_TEST_CASE(itl_per_phase) {
    request_timeline r;
    r.add_chunk(10, 1, true);
    r.add_chunk(20, 2, true);   // thinking: 10 ns over 2 tokens
    r.add_chunk(50, 1, false);  // the step into the answer: 30 ns
    r.add_chunk(54, 1, false);  // answer: 4 ns
    histogram thinking, answer, all;
    BOOST_TEST(record_itl(thinking, r, false, itl_phase::reasoning).token_samples == 2u);
    BOOST_TEST(record_itl(answer, r, false, itl_phase::answer).token_samples == 2u);
    BOOST_TEST(record_itl(all, r, false).token_samples == 4u);
    BOOST_TEST(thinking.max() == 5);
    BOOST_TEST(answer.min() == 4);
    BOOST_TEST(answer.max() == 30);
}

// A non-streamed answer: the message's reasoning and tool call, the usage's reasoning tokens.
BOOST_AUTO_TEST_CASE(a_json_answer_that_thought_and_called_a_tool) {
    const std::string body =
        R"({"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":null,)"
        R"("reasoning":"Look it up.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"search",)"
        R"("arguments":"{\"q\":\"x\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,)"
        R"("completion_tokens":12,"completion_tokens_details":{"reasoning_tokens":4}}})";
    const fed f = feed_whole(200, body, none, "application/json", response_mode::json);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "reasoning t=1 a=4 b=0 v=0 req=7", "done t=1 a=12 b=50 v=-1 req=7 tool_call"}),
               boost::test_tools::per_element());
    check_splits(200, body, none, "application/json", response_mode::json);
    // vLLM sends an empty tool_calls list with a plain answer: that is no call.
    const std::string plain =
        R"({"object":"chat.completion","choices":[{"message":{"content":"hi","tool_calls":[]},"finish_reason":"stop"}],)"
        R"("usage":{"prompt_tokens":5,"completion_tokens":1}})";
    BOOST_TEST(lines(feed_whole(200, plain, none, "application/json", response_mode::json)).back() ==
               "done t=1 a=1 b=5 v=-1 req=7");
}
