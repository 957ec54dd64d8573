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

BOOST_AUTO_TEST_SUITE(unit_reasoning_stream)

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
        if (e.kind == event_kind::chunk)
            r.add_chunk(t += 1'000'000, e.chunk_tokens(), (e.flags & chunk_reasoning) != 0, e.shared_reasoning_chars(),
                        e.chunk_chars());
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
                                                     // thinking and answer in one delta: the answer has begun,
                                                     // its first 16 code points thought
                                                     "chunk t=1 a=3 b=21 v=16 req=7",
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

// SGLang (and vLLM before 2026) send the step that ends the thinking as one delta with
// reasoning_content and content: its two tokens are one of each, not two of the answer.
BOOST_AUTO_TEST_CASE(a_chunk_of_thinking_and_answer_divides_its_tokens) {
    const std::string body = stream("sglang_thinking_and_answer_chunk.sse");
    const fed f = feed_whole(200, body);
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.ttfa == 3'000'000);  // the shared chunk is the answer's first
    BOOST_TEST(m.reasoning_tokens == 5);  // 1 + 3 + one of the shared chunk's two
    BOOST_TEST(m.answer_tokens == 2);
    BOOST_TEST(reasoning_source_name(m.reasoning_from) == "usage_deltas");  // one token each: exact

    // Three tokens in it: divided by its characters (" is four." against "4": two and one), and
    // said to be an estimate.
    std::string three = body;
    const auto replace = [&](const std::string& from, const std::string& to) {
        const auto at = three.find(from);
        BOOST_TEST_REQUIRE(at != std::string::npos);
        three.replace(at, from.size(), to);
    };
    replace(R"("total_tokens":21,"completion_tokens":7}})", R"("total_tokens":22,"completion_tokens":8}})");
    replace(R"("total_tokens":20,"completion_tokens":6)", R"("total_tokens":21,"completion_tokens":7)");
    const request_metrics guessed = measure(feed_whole(200, three));
    BOOST_TEST(guessed.reasoning_tokens == 6);
    BOOST_TEST(guessed.answer_tokens == 2);
    BOOST_TEST(reasoning_source_name(guessed.reasoning_from) == "usage_deltas_split");
}

// A server without a reasoning parser (llama.cpp without --reasoning-format) streams the
// thinking inside the content between <think> tags: read as thinking because the stream
// opens with <think>, the answer's clock waits for the text after </think>.
BOOST_AUTO_TEST_CASE(thinking_between_tags_in_the_content) {
    const std::string body = stream("llamacpp_think_tags.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=7 v=0 req=7 thinking tags",
                                                     "chunk t=1 a=-1 b=5 v=0 req=7 thinking tags",
                                                     "chunk t=1 a=-1 b=6 v=0 req=7 thinking tags",
                                                     "chunk t=1 a=-1 b=9 v=0 req=7 thinking tags",
                                                     "chunk t=1 a=-1 b=3 v=0 req=7", "done t=1 a=9 b=12 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.ttft == 1'000'000);
    BOOST_TEST(m.ttfa == 5'000'000);  // "\n\n4", after </think>
    BOOST_TEST(m.reasoning == 4'000'000);
    BOOST_TEST(m.reasoning_tokens == 4);  // no continuous usage: its four thinking chunks, an estimate
    BOOST_TEST(reasoning_source_name(m.reasoning_from) == "chunks");
    BOOST_TEST(m.answer_tokens == 5);
    BOOST_TEST(!m.ended_thinking);
}

// A gateway that re-chunks the text and JSON-escapes < and > as Go's encoder does (\u003c):
// the opening tag split over two chunks (the first waits until it is known to open <think>),
// the closing tag over two more, and a <think> in the answer read as answer.
BOOST_AUTO_TEST_CASE(think_tags_split_across_chunks_and_escaped) {
    const std::string body = stream("gateway_think_tags_split.sse");
    const fed f = feed_whole(200, body);
    BOOST_TEST(lines(f) == (std::vector<std::string>{"headers t=0 a=200 b=0 v=0 req=7",
                                                     "chunk t=1 a=-1 b=3 v=0 req=7 thinking tags",  // held, then known
                                                     "chunk t=1 a=-1 b=11 v=0 req=7 thinking tags",
                                                     "chunk t=1 a=-1 b=21 v=0 req=7 thinking tags",
                                                     "chunk t=1 a=-1 b=10 v=3 req=7 tags",  // "nk>" thought
                                                     "chunk t=1 a=-1 b=9 v=0 req=7", "done t=1 a=14 b=11 v=-1 req=7"}),
               boost::test_tools::per_element());
    check_splits(200, body);
    const request_metrics m = measure(f);
    BOOST_TEST(m.ttft == 1'000'000);   // the held "<th" keeps its own time
    BOOST_TEST(m.ttfa == 4'000'000);   // "nk>\n\nIt is": the tag's end, then the answer
    BOOST_TEST(m.reasoning == 3'000'000);
    BOOST_TEST(m.reasoning_tokens == 4);  // three thinking chunks and the one that ended it
    BOOST_TEST(m.answer_tokens == 10);

    // A stream whose first content only looks like the tag's start is answer from its first chunk.
    std::string html = body;
    html.replace(html.find(R"(ink\u003e)"), 9, R"(ink-tank)");
    const request_metrics answer = measure(feed_whole(200, html));
    BOOST_TEST(answer.ttfa == answer.ttft);
    BOOST_TEST(answer.reasoning_tokens == 0);
}

// The tag reader on its own, the text cut at every place (a JSON escape is never cut: a chunk
// is a whole string): the same thinking whatever the cuts, the tags counted with it.
BOOST_AUTO_TEST_CASE(think_tags_are_read_however_the_text_is_cut) {
    const auto thinking = [](reasoning_parser p, std::string_view text, bool escaped, std::size_t cut,
                             std::size_t cut2) {
        think_tag_reader r;
        r.start(p);
        std::size_t n = 0, held = 0;
        for (const auto [from, to] : {std::pair{std::size_t{0}, cut}, std::pair{cut, cut2}, std::pair{cut2, text.size()}}) {
            if (from == to) continue;
            const std::size_t got = r.read(text.substr(from, to - from), escaped);
            if (r.undecided()) held += to - from;  // ASCII here: bytes are code points
            n += got;
        }
        return std::pair{n + (r.used() ? held : 0), r.used()};
    };
    const std::string plain = "<think>ab</thinking> c</think>xy <think>";  // 30 of thinking, then answer
    for (std::size_t a = 0; a <= plain.size(); ++a)
        for (std::size_t b = a; b <= plain.size(); ++b)
            BOOST_TEST_REQUIRE((thinking(reasoning_parser::auto_detect, plain, false, a, b) == std::pair{std::size_t{30}, true}),
                               a << " " << b);
    const std::string escaped = R"(\u003cthink\u003e\n\u003c/think\u003eok)";
    for (std::size_t a : {0u, 17u, 19u, 37u})  // the opening tag cut and escaped: gateway_think_tags_split.sse
        BOOST_TEST((thinking(reasoning_parser::auto_detect, escaped, true, a, a) == std::pair{std::size_t{16}, true}), a);
    // auto reads only a stream that opens with the tag; think-tags reads up to </think> whatever
    // opens it (a template that put <think> in the prompt); none reads nothing.
    BOOST_TEST((thinking(reasoning_parser::auto_detect, " <think>a</think>b", false, 3, 3) == std::pair{std::size_t{0}, false}));
    BOOST_TEST((thinking(reasoning_parser::think_tags, "plan</think>b", false, 2, 6) == std::pair{std::size_t{12}, true}));
    BOOST_TEST((thinking(reasoning_parser::think_tags, "no tag at all", false, 0, 0) == std::pair{std::size_t{13}, true}));
    BOOST_TEST((thinking(reasoning_parser::none, "<think>a</think>b", false, 0, 0) == std::pair{std::size_t{0}, false}));
    // A first chunk that generated no text (a tool call) ends the detection.
    think_tag_reader r;
    r.start(reasoning_parser::auto_detect);
    BOOST_TEST(r.read("", false) == 0u);
    BOOST_TEST(r.read("<think>", false) == 0u);
    BOOST_TEST(!r.reading());
    BOOST_TEST(reasoning_parser_name(*reasoning_parser_from("think-tags")) == "think-tags");
    BOOST_TEST(!reasoning_parser_from("deepseek_r1"));
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

BOOST_AUTO_TEST_SUITE_END()
