#include <boost/test/unit_test.hpp>

#include "reader_feed.hpp"

#include "openloop/sim/openai_api.hpp"
#include "openloop/sim/responses_writer.hpp"

#include <boost/json.hpp>

BOOST_AUTO_TEST_SUITE(unit_responses_api)

// The simulator's POST /v1/responses: what a body asks, counted as chat
// messages are, vLLM's 400s, and the stream and body it writes, read back
// by the response reader as openloop reads a real server's.

using namespace reader_feed;
namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

sim_config config() {
    sim_config c;
    c.model = *find_preset("cpu-small");
    c.model.max_model_len = 100;
    c.tokenizer = sim_tokenizer_kind::words;
    return c;
}

std::string refusal(std::string_view body) {
    completion_request r;
    const auto e = parse_responses(body, config(), r);
    return e ? std::to_string(static_cast<int>(e->status)) + " " + e->message : "accepted";
}

responses_writer writer() {
    responses_writer w;
    w.id = "resp_1";
    w.item_id = "msg_1";
    w.model_json = R"("openloop-sim")";
    w.created_unix = 1733000000;
    w.prompt_tokens = 12;
    w.cached_tokens = 8;
    return w;
}

}  // namespace

BOOST_AUTO_TEST_CASE(input_and_instructions_are_counted_as_chat_messages) {
    const auto cfg = config();
    completion_request r;
    BOOST_TEST(!parse_responses(R"({"model":"openloop-sim","input":"one two three four","max_output_tokens":8,)"
                                R"("stream":true,"ignore_eos":true,"min_tokens":8,"temperature":0,"seed":3})",
                                cfg, r));
    BOOST_TEST(r.responses);
    BOOST_TEST(r.prompt_tokens == 4);
    BOOST_TEST(r.max_tokens == 8);
    BOOST_TEST(r.min_tokens == 8);
    BOOST_TEST(r.ignore_eos);
    BOOST_TEST(r.stream);
    BOOST_TEST(r.temperature == 0.0);
    BOOST_TEST(r.seed.value_or(-1) == 3);

    completion_request dflt;
    BOOST_TEST(!parse_responses(R"({"instructions":"be brief","input":"one two"})", cfg, dflt));
    BOOST_TEST(dflt.prompt_tokens == 4);
    BOOST_TEST(dflt.max_tokens == 96);  // the rest of the context, as for chat
    BOOST_TEST(!dflt.stream);

    completion_request items;
    BOOST_TEST(!parse_responses(R"({"input":[{"role":"user","content":[{"type":"input_text","text":"a b c"}]},)"
                                R"({"type":"message","role":"assistant","content":"d e"}]})",
                                cfg, items));
    BOOST_TEST(items.prompt_tokens == 5);
    // max_tokens is chat's name: a Responses body's is max_output_tokens.
    completion_request other;
    BOOST_TEST(!parse_responses(R"({"input":"a","max_tokens":3})", cfg, other));
    BOOST_TEST(other.max_tokens == 99);
}

BOOST_AUTO_TEST_CASE(bad_bodies_get_vllms_errors) {
    BOOST_TEST(refusal(R"({"model":"openloop-sim"})") == "400 input: field required");
    BOOST_TEST(refusal(R"({"input":5})") == "400 input: a string or a non-empty list of input items is required, got 5");
    BOOST_TEST(refusal(R"({"input":[]})").starts_with("400 input: a string or a non-empty list"));
    BOOST_TEST(refusal(R"({"input":"a","max_output_tokens":0})") == "400 max_output_tokens must be at least 1, got 0");
    BOOST_TEST(refusal(R"({"input":"a b","max_output_tokens":99})").starts_with(
        "400 This model's maximum context length is 100 tokens. However, you requested 101 tokens"));
    BOOST_TEST(refusal(R"({"model":"gpt-4o","input":"a"})") == "404 The model `gpt-4o` does not exist.");
    BOOST_TEST(refusal(R"({"input":[7]})") == "400 input: messages[]: each message must be an object");
}

BOOST_AUTO_TEST_CASE(the_stream_it_writes_reads_back_as_written) {
    responses_writer w = writer();
    event_writer words;
    words.word_state = 42;
    std::string body;
    w.opening(body);
    w.delta(body, words, 3);
    w.delta(body, words, 2);
    w.closing(body, generated_words(42, 5), 5, true);
    BOOST_TEST(body.find("[DONE]") == std::string::npos);
    BOOST_TEST(body.find(R"("status":"incomplete")") != std::string::npos);

    const fed f = feed_whole(200, body);
    BOOST_TEST_REQUIRE(f.events.size() == 5u);
    BOOST_TEST(f.outcome == none);
    // vLLM's usage says 0 reasoning tokens: said before the done event.
    BOOST_TEST(show(f.events[3]) == "reasoning t=1 a=0 b=0 v=0 req=7");
    BOOST_TEST(show(f.events.back()) == "done t=1 a=5 b=12 v=8 req=7");
    // Each delta's characters are its words, each with its leading space.
    const std::string text = generated_words(42, 5);
    BOOST_TEST(f.events[1].b + f.events[2].b == static_cast<std::int64_t>(text.size()));
    check_splits(200, body);

    // Every event names its type on its SSE line and in its data, numbered in order.
    std::size_t events = 0;
    for (std::size_t at = 0; (at = body.find("data: ", at)) != std::string::npos; ++events) {
        const auto end = body.find('\n', at);
        const json::object o = json::parse(body.substr(at + 6, end - at - 6)).as_object();
        BOOST_TEST(o.at("sequence_number").as_int64() == static_cast<std::int64_t>(events));
        const auto line = body.rfind("event: ", at);
        BOOST_TEST(body.substr(line + 7, at - line - 8) == std::string(o.at("type").as_string()));
        at = end;
    }
    BOOST_TEST(events == 10u);  // created, in_progress, item and part added, 2 deltas, 3 done, completed
}

BOOST_AUTO_TEST_CASE(the_body_it_answers_and_a_malformed_delta) {
    responses_writer w = writer();
    const std::string body = w.body(generated_words(1, 4), 4, false);
    const json::object o = json::parse(body).as_object();
    BOOST_TEST(o.at("status").as_string() == "completed");
    BOOST_TEST(o.at("usage").at("output_tokens").as_int64() == 4);
    BOOST_TEST(o.at("usage").at("input_tokens_details").at("cached_tokens").as_int64() == 8);
    const fed f = feed_whole(200, body, none, "application/json", response_mode::json);
    BOOST_TEST(show(f.events.back()) == "done t=1 a=4 b=12 v=8 req=7");

    std::string bad;
    w.malformed(bad);
    BOOST_TEST(feed_whole(200, bad).outcome == error_class::bad_chunk);
}

// A thinking model's response: the reasoning item first (its reasoning_text
// deltas, then its .done events), the message at output_index 1 opened where
// the thinking ends, and usage.output_tokens_details.reasoning_tokens.
BOOST_AUTO_TEST_CASE(thinking_comes_first_as_a_reasoning_item) {
    responses_writer w = writer();
    w.reasoning = 3;
    w.reasoning_id = "rs_1";
    w.thinking = generated_words(9, 3);
    event_writer words;
    words.word_state = 42;
    words.reasoning_state = 9;
    std::string body;
    w.opening(body);
    BOOST_TEST(!w.step(body, words, 2, 0));
    BOOST_TEST(w.step(body, words, 2, 2));
    BOOST_TEST(w.step(body, words, 1, 4));
    w.closing(body, generated_words(42, 2), 5, true);
    BOOST_TEST(feed_whole(200, body).outcome == none);

    std::vector<json::object> events;
    for (std::size_t at = 0; (at = body.find("data: ", at)) != std::string::npos;) {
        const auto end = body.find('\n', at);
        events.push_back(json::parse(body.substr(at + 6, end - at - 6)).as_object());
        at = end;
    }
    std::vector<std::string> types;
    for (const auto& e : events) types.emplace_back(e.at("type").as_string());
    const std::vector<std::string> expected{
        "response.created", "response.in_progress", "response.output_item.added", "response.reasoning_part.added",
        "response.reasoning_text.delta", "response.reasoning_text.delta", "response.reasoning_text.done",
        "response.reasoning_part.done", "response.output_item.done", "response.output_item.added",
        "response.content_part.added", "response.output_text.delta", "response.output_text.delta",
        "response.output_text.done", "response.content_part.done", "response.output_item.done", "response.completed"};
    BOOST_TEST(types == expected, boost::test_tools::per_element());
    std::string thinking, text;
    for (const auto& e : events) {
        if (e.at("type") == "response.reasoning_text.delta") {
            BOOST_TEST(e.at("item_id").as_string() == "rs_1");
            BOOST_TEST(e.at("output_index").as_int64() == 0);
            thinking += e.at("delta").as_string();
        }
        if (e.at("type") == "response.output_text.delta") {
            BOOST_TEST(e.at("output_index").as_int64() == 1);
            text += e.at("delta").as_string();
        }
    }
    BOOST_TEST(thinking == w.thinking);
    BOOST_TEST(text == generated_words(42, 2));
    const auto& done = events.back().at("response").as_object();
    BOOST_TEST(done.at("output").at(0).at("type").as_string() == "reasoning");
    BOOST_TEST(done.at("output").at(0).at("content").at(0).at("text").as_string() == w.thinking);
    BOOST_TEST(done.at("output").at(1).at("type").as_string() == "message");
    BOOST_TEST(done.at("usage").at("output_tokens").as_int64() == 5);
    BOOST_TEST(done.at("usage").at("output_tokens_details").at("reasoning_tokens").as_int64() == 3);

    // All of max_output_tokens spent thinking: the reasoning item alone.
    const auto cut = json::parse(w.body("", 3, true)).as_object();
    BOOST_TEST(cut.at("output").as_array().size() == 1u);
    BOOST_TEST(cut.at("output").at(0).at("type").as_string() == "reasoning");
    BOOST_TEST(cut.at("status").as_string() == "incomplete");
}

BOOST_AUTO_TEST_SUITE_END()
