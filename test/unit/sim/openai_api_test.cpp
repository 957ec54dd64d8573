#include <boost/test/unit_test.hpp>

#include "openloop/load/tokens.hpp"
#include "openloop/sim/answer_plan.hpp"
#include "openloop/sim/event_writer.hpp"
#include "openloop/sim/openai_api.hpp"

#include <boost/json.hpp>

#include <limits>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_openai_api)

using namespace openloop;
namespace http = boost::beast::http;

namespace {

sim_config config() {
    sim_config c;
    c.model = *find_preset("cpu-small");
    c.model.max_model_len = 100;
    return c;
}

}  // namespace

// The answers a completion request gets without a socket: vLLM's defaults and refusals.
BOOST_AUTO_TEST_CASE(completion_requests) {
    const auto cfg = config();
    completion_request r;
    BOOST_TEST(!parse_completion(R"({"prompt":"one two three","stream":true,
        "stream_options":{"include_usage":true}})", false, cfg, r));
    BOOST_TEST(r.prompt_tokens == 3);
    BOOST_TEST(r.max_tokens == 16);  // /v1/completions default
    BOOST_TEST(r.stream);
    BOOST_TEST(r.include_usage);
    BOOST_TEST(!r.continuous_usage);

    completion_request chat;
    BOOST_TEST(!parse_completion(R"({"messages":[{"role":"user","content":"a b"}]})", true, cfg, chat));
    BOOST_TEST(chat.max_tokens == cfg.model.max_model_len - chat.prompt_tokens);  // the rest of the context

    completion_request bad;
    const auto too_long = parse_completion(R"({"prompt":"a","max_tokens":100})", false, cfg, bad);
    BOOST_TEST_REQUIRE(too_long.has_value());
    BOOST_TEST((too_long->status == http::status::bad_request));
    BOOST_TEST(too_long->message.find("maximum context length is 100") != std::string::npos);
    const auto other_model = parse_completion(R"({"prompt":"a","model":"gpt-4"})", false, cfg, bad);
    BOOST_TEST_REQUIRE(other_model.has_value());
    BOOST_TEST((other_model->status == http::status::not_found));
    BOOST_TEST(parse_completion("{not json", false, cfg, bad).has_value());

    const auto body = boost::json::parse(error_body(*too_long)).as_object();
    BOOST_TEST(body.at("error").at("code").as_int64() == 400);
}

// Every numeric field is read in 64 bits and range-checked: a value that once
// wrapped an int (max_tokens 2147483646 + the prompt passed the context check as
// a negative sum) is a 400 naming the field, with vLLM's words.
BOOST_AUTO_TEST_CASE(numeric_fields_are_validated) {
    const auto cfg = config();  // max_model_len 100
    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"("max_tokens":2147483646)", "However, you requested 2147483648 tokens (2 in the messages, 2147483646 in the completion)"},
        {R"("max_tokens":2147483647)", "maximum context length is 100 tokens"},
        {R"("max_tokens":9223372036854775807)", "you requested 9223372036854775809 tokens"},
        {R"("max_tokens":18446744073709551615)", "max_tokens must be at most 9223372036854775807"},
        {R"("max_tokens":99)", "you requested 101 tokens"},
        {R"("max_tokens":0)", "max_tokens must be at least 1, got 0"},
        {R"("max_tokens":-5)", "max_tokens must be at least 1, got -5"},
        {R"("max_tokens":1.5)", "max_tokens must be an integer"},
        {R"("max_tokens":"10")", "max_tokens must be an integer"},
        {R"("max_completion_tokens":4294967296)", "in the completion"},
        {R"("max_completion_tokens":-1)", "max_completion_tokens must be at least 1"},
        {R"("min_tokens":-1)", "min_tokens must be at least 0"},
        {R"("min_tokens":50,"max_tokens":10)", "min_tokens must be less than or equal to max_tokens=10, got 50"},
        {R"("min_tokens":4294967306,"max_tokens":10)", "min_tokens must be less than or equal to max_tokens=10"},
        {R"("n":0)", "n must be at least 1"},
        {R"("n":4294967297)", "n: the simulator supports n=1 only"},
        {R"("n":true)", "n must be an integer"},
        {R"("seed":18446744073709551615)", "seed must be at most 9223372036854775807"},
        {R"("seed":"x")", "seed must be an integer"},
        {R"("temperature":-0.5)", "temperature must be non-negative, got -0.5"},
        {R"("temperature":"hot")", "temperature must be a number"},
        {R"("top_p":0)", "top_p must be in (0, 1]"},
        {R"("top_p":1.5)", "top_p must be in (0, 1]"},
        {R"("prompt":[1,-2,3])", "token ids must be non-negative integers, got -2"},
        {R"("prompt":[1,2.5])", "token ids must be non-negative integers"},
    };
    for (const auto& [fields, says] : bad) {
        BOOST_TEST_CONTEXT(fields) {
            // Chat, so max_completion_tokens counts; "a b" is two prompt tokens.
            const std::string body = R"({"messages":[{"role":"user","content":"a b"}],)" + fields + "}";
            completion_request r;
            const auto e = parse_completion(body.find(R"("prompt")") != std::string::npos
                                                ? "{" + fields + "}" : body,
                                            body.find(R"("prompt")") == std::string::npos, cfg, r);
            BOOST_TEST_REQUIRE(e.has_value());
            BOOST_TEST((e->status == http::status::bad_request));
            BOOST_TEST(e->message.find(says) != std::string::npos, e->message);
        }
    }
    // In range, every field is taken as given.
    completion_request r;
    BOOST_TEST(!parse_completion(R"({"messages":[{"role":"user","content":"a b"}],"max_completion_tokens":98,
        "min_tokens":98,"n":1,"seed":-9223372036854775808,"temperature":1.5,"top_p":1})", true, cfg, r));
    BOOST_TEST(r.max_tokens == 98);
    BOOST_TEST(r.min_tokens == 98);
    BOOST_TEST(r.seed.value() == std::numeric_limits<std::int64_t>::min());
    BOOST_TEST(r.temperature == 1.5);
    // A prompt that fills the context leaves no default completion: vLLM's message.
    std::string full = R"({"messages":[{"role":"user","content":")";
    for (int i = 0; i < 100; ++i) full += "w ";
    const auto e = parse_completion(full + R"("}]})", true, cfg, r);
    BOOST_TEST_REQUIRE(e.has_value());
    BOOST_TEST(e->message.find("maximum context length is 100 tokens. However, your request has") != std::string::npos,
               e->message);
}

BOOST_AUTO_TEST_CASE(output_lengths_are_reproducible_and_bounded) {
    completion_request r;
    r.max_tokens = 50;
    r.min_tokens = 10;
    for (std::uint64_t h = 0; h < 1000; ++h) {
        const int n = output_length(r, h);
        BOOST_TEST_REQUIRE((n >= 10 && n <= 50));
        BOOST_TEST_REQUIRE(n == output_length(r, h));
    }
    r.ignore_eos = true;
    BOOST_TEST(output_length(r, 7) == 50);
}

BOOST_AUTO_TEST_CASE(stream_events_in_vllm_shape) {
    event_writer w;
    w.chat = true;
    w.prompt_tokens = 5;
    w.head = R"({"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":)";
    std::string out;
    w.content(out, 2, 2, "length", true);
    BOOST_TEST_REQUIRE(out.rfind("data: ", 0) == 0u);
    BOOST_TEST_REQUIRE(out.ends_with("\n\n"));
    const auto chunk = boost::json::parse(out.substr(6)).as_object();
    BOOST_TEST(chunk.at("choices").at(0).at("finish_reason").as_string() == "length");
    BOOST_TEST(chunk.at("usage").at("completion_tokens").as_int64() == 2);
    BOOST_TEST(chunk.at("usage").at("total_tokens").as_int64() == 7);
}

// A non-streamed answer in vLLM's shape: the choice by endpoint, and usage in 64 bits.
BOOST_AUTO_TEST_CASE(non_streamed_completion_body) {
    auto chat = boost::json::parse(completion_response(true, "chatcmpl-7", 1700000000, "m", " a b", "length", 3, 2, 0))
                    .as_object();
    BOOST_TEST(chat.at("object").as_string() == "chat.completion");
    BOOST_TEST(chat.at("choices").at(0).at("message").at("content").as_string() == " a b");
    BOOST_TEST(chat.at("choices").at(0).at("finish_reason").as_string() == "length");
    BOOST_TEST(!chat.at("usage").as_object().contains("prompt_tokens_details"));
    auto text = boost::json::parse(completion_response(false, "cmpl-1", 0, "m", " x", "stop", 2147483647, 2147483647, 16))
                    .as_object();
    BOOST_TEST(text.at("choices").at(0).at("text").as_string() == " x");
    BOOST_TEST(text.at("usage").at("total_tokens").as_int64() == 4294967294);
    BOOST_TEST(text.at("usage").at("prompt_tokens_details").at("cached_tokens").as_int64() == 16);
}

namespace {

constexpr const char* tools_json =
    R"("tools":[{"type":"function","function":{"name":"search","parameters":{}}},)"
    R"({"type":"function","function":{"name":"fetch","parameters":{}}}])";

// The JSON objects of SSE events: every "data: " payload.
std::vector<boost::json::object> events(const std::string& out) {
    std::vector<boost::json::object> v;
    for (std::size_t pos = 0; (pos = out.find("data: ", pos)) != std::string::npos;) {
        const auto end = out.find("\n\n", pos);
        v.push_back(boost::json::parse(out.substr(pos + 6, end - pos - 6)).as_object());
        pos = end;
    }
    return v;
}

const boost::json::object& delta_of(const boost::json::object& chunk) {
    return chunk.at("choices").at(0).at("delta").as_object();
}

event_writer chat_writer(reasoning_shape shape, int reasoning) {
    event_writer w;
    w.chat = true;
    w.continuous_usage = true;
    w.prompt_tokens = 5;
    w.thinks = true;
    w.shape = shape;
    w.reasoning = reasoning;
    w.head = R"({"id":"x","object":"chat.completion.chunk","created":0,"model":"m","choices":)";
    return w;
}

// The chunks of a 5-token answer that thinks 3, sent as steps of 2, 2 and 1 tokens.
std::vector<boost::json::object> thinking_steps(reasoning_shape shape) {
    auto w = chat_writer(shape, 3);
    std::string out;
    BOOST_TEST(!w.step(out, 2, 0, {}));
    BOOST_TEST(w.step(out, 2, 2, {}));
    BOOST_TEST(w.step(out, 1, 4, "length"));
    auto cs = events(out);
    BOOST_TEST_REQUIRE(cs.size() == 3u);
    return cs;
}

// Each chat body is refused with 400, its message saying what was wrong.
void refused(const sim_config& cfg, const std::vector<std::pair<std::string, std::string>>& bad) {
    for (const auto& [body, says] : bad) {
        BOOST_TEST_CONTEXT(body) {
            completion_request b;
            const auto e = parse_completion(body, true, cfg, b);
            BOOST_TEST_REQUIRE(e.has_value());
            BOOST_TEST((e->status == http::status::bad_request));
            BOOST_TEST(e->message.find(says) != std::string::npos, e->message);
        }
    }
}

}  // namespace

// An agent's history: an assistant's tool call (content null) and the tool's
// result; each counted with the tools, and a malformed one refused naming its field.
BOOST_AUTO_TEST_CASE(tool_calls_and_tool_messages_are_parsed_and_counted) {
    const auto cfg = config();
    const std::string history =
        R"({"messages":[{"role":"user","content":"find it"},)"
        R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function",)"
        R"("function":{"name":"search","arguments":"{\"q\": \"x y\"}"}}]},)"
        R"({"role":"tool","tool_call_id":"call_1","content":"three result words"}],)";
    completion_request r;
    const auto ok = parse_completion(history + tools_json + R"(,"tool_choice":"auto"})", true, cfg, r);
    BOOST_TEST_REQUIRE(!ok, ok->message);
    // Words: "find it" 2, "search" 1, {"q": "x y"} 3, the result 3, and one word per tool's JSON.
    BOOST_TEST(r.prompt_tokens == 2 + 1 + 3 + 3 + 2);
    BOOST_TEST(r.tools.names == (std::vector<std::string>{"search", "fetch"}));
    BOOST_TEST((r.tools.choice == tool_choice_kind::auto_));
    BOOST_TEST(r.tools.tool_results == 1);
    BOOST_TEST(r.tools.thinking);

    completion_request named;
    BOOST_TEST(!parse_completion(R"({"messages":[{"role":"user","content":"a"}],)" + std::string(tools_json) +
                                     R"(,"tool_choice":{"type":"function","function":{"name":"fetch"}},)"
                                     R"("chat_template_kwargs":{"enable_thinking":false}})",
                                 true, cfg, named));
    BOOST_TEST((named.tools.choice == tool_choice_kind::named));
    BOOST_TEST(named.tools.forced == "fetch");
    BOOST_TEST(!named.tools.thinking);

    const std::vector<std::pair<std::string, std::string>> bad = {
        {R"({"messages":[{"role":"tool","content":"r"}]})", "messages[0].tool_call_id: a string is required"},
        {R"({"messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[{"id":"c",)"
         R"("function":{"name":"f","arguments":{}}}]}]})",
         "messages[1].tool_calls[0].function.arguments: a string is required"},
        {R"({"messages":[{"role":"assistant","tool_calls":[{"id":"c"}]}]})",
         "messages[0].tool_calls[0].function: an object is required"},
        {R"({"messages":[{"role":"assistant","tool_calls":{}}]})", "messages[0].tool_calls: a list is required"},
        {R"({"messages":[{"role":"user","content":"a","tool_calls":[]}]})",
         "messages[0].tool_calls: only an assistant message"},
        {R"({"messages":[{"role":"user","content":"a"}],"tools":[{"type":"function","function":{}}]})",
         "tools[0].function.name: a string is required"},
        {R"({"messages":[{"role":"user","content":"a"}],"tools":[{"type":"retrieval"}]})", "tools[0].type"},
        {R"({"messages":[{"role":"user","content":"a"}],"tools":{}})", "tools: a list"},
        {R"({"messages":[{"role":"user","content":"a"}],"tool_choice":"required"})", "`tools` must be set"},
        {R"({"messages":[{"role":"user","content":"a"}],)" + std::string(tools_json) + R"(,"tool_choice":"any"})",
         "tool_choice: \"none\", \"auto\", \"required\""},
        {R"({"messages":[{"role":"user","content":"a"}],)" + std::string(tools_json) +
             R"(,"tool_choice":{"type":"function","function":{"name":"nope"}}})",
         "`nope` specified in `tool_choice` does not match"},
    };
    refused(cfg, bad);
}

// Thinking comes out of max_tokens first; the answer is text or a tool call by
// the chain, the share and tool_choice; the Responses API and completions neither.
BOOST_AUTO_TEST_CASE(answers_are_planned_by_thinking_and_tools) {
    answer_config cfg;
    cfg.reasoning_tokens = length_dist::fixed(30);
    completion_request r;
    r.chat = true;
    r.max_tokens = 50;
    r.ignore_eos = true;
    auto p = plan_answer(cfg, r, 1);
    BOOST_TEST(p.reasoning == 30);
    BOOST_TEST(p.answer == 20);
    BOOST_TEST(p.finish(r) == "length");
    r.max_tokens = 30;  // all spent thinking: no answer
    p = plan_answer(cfg, r, 1);
    BOOST_TEST(p.reasoning == 30);
    BOOST_TEST(p.answer == 0);
    BOOST_TEST(p.finish(r) == "length");
    r.max_tokens = 50;
    r.tools.thinking = false;
    BOOST_TEST(plan_answer(cfg, r, 1).reasoning == 0);
    r.tools.thinking = true;
    r.responses = true;  // the Responses API thinks, but calls no tools
    r.tools.names = {"a"};
    r.tools.choice = tool_choice_kind::required;
    p = plan_answer(cfg, r, 1);
    BOOST_TEST(p.reasoning == 30);
    BOOST_TEST(!p.tool_call);
    r.tools = {};
    r.responses = false;
    r.ignore_eos = false;
    for (std::uint64_t h = 0; h < 200; ++h) {
        const auto q = plan_answer(cfg, r, h);
        BOOST_TEST_REQUIRE((q.answer >= 1 && q.answer <= 20));
    }

    cfg.tool_chain = 2;
    r.tools.names = {"a", "b", "c"};
    r.tools.tool_results = 1;
    p = plan_answer(cfg, r, 7);
    BOOST_TEST(p.tool_call);
    BOOST_TEST(p.finish(r) == "tool_calls");
    BOOST_TEST_REQUIRE(p.calls() == 1);
    BOOST_TEST((p.functions[0] == "a" || p.functions[0] == "b" || p.functions[0] == "c"));
    r.tools.tool_results = 2;  // the chain is done: a final text answer
    BOOST_TEST(!plan_answer(cfg, r, 7).tool_call);
    r.tools.choice = tool_choice_kind::named;
    r.tools.forced = "c";
    p = plan_answer(cfg, r, 7);
    BOOST_TEST(p.tool_call);
    BOOST_TEST(p.functions == std::vector<std::string>{"c"});
    r.tools.choice = tool_choice_kind::none;
    r.tools.tool_results = 0;
    BOOST_TEST(!plan_answer(cfg, r, 7).tool_call);

    cfg.tool_chain = 0;
    r.tools.choice = tool_choice_kind::auto_;
    int calls = 0;
    std::vector<int> picked(3);
    for (std::uint64_t h = 0; h < 400; ++h) {
        cfg.tool_call_share = 0.25;
        const auto q = plan_answer(cfg, r, h);
        calls += q.tool_call;
        if (q.tool_call) ++picked[q.functions.at(0)[0] - 'a'];
        BOOST_TEST_REQUIRE(q.tool_call == plan_answer(cfg, r, h).tool_call);  // by the seed
    }
    BOOST_TEST((calls > 60 && calls < 140), calls);
    for (int n : picked) BOOST_TEST(n > 0);
    cfg.tool_call_share = 0;
    r.tools.choice = tool_choice_kind::required;
    BOOST_TEST(plan_answer(cfg, r, 3).tool_call);
    BOOST_TEST(tool_call_id(3).size() == 5u + 16u);
    BOOST_TEST(tool_call_id(3).rfind("call_", 0) == 0u);

    // --parallel-tool-calls: the calls share the answer's tokens, at most one call per token;
    // a named tool_choice calls its function once.
    cfg.parallel_calls = 3;
    r.max_tokens = 40;
    r.ignore_eos = true;
    p = plan_answer(cfg, r, 3);
    BOOST_TEST_REQUIRE(p.calls() == 3);
    BOOST_TEST(p.answer == 10);
    BOOST_TEST(p.call_first(0) == 0);
    BOOST_TEST(p.call_tokens(0) + p.call_tokens(1) + p.call_tokens(2) == 10);
    BOOST_TEST(p.call_first(2) == p.call_tokens(0) + p.call_tokens(1));
    r.max_tokens = 32;  // two answer tokens: two calls
    BOOST_TEST(plan_answer(cfg, r, 3).calls() == 2);
    r.tools.choice = tool_choice_kind::named;
    r.tools.forced = "b";
    BOOST_TEST(plan_answer(cfg, r, 3).functions == std::vector<std::string>{"b"});
}

// OpenAI refuses a history in which an assistant's tool call has no tool message answering
// its id before the next message, or a tool message answers no call; the simulator does too.
BOOST_AUTO_TEST_CASE(every_tool_call_needs_its_result) {
    const auto cfg = config();
    const std::string asked =
        R"({"messages":[{"role":"user","content":"find it"},)"
        R"({"role":"assistant","content":null,"tool_calls":[)"
        R"({"id":"call_a","type":"function","function":{"name":"search","arguments":"{}"}},)"
        R"({"id":"call_b","type":"function","function":{"name":"fetch","arguments":"{}"}}]},)";
    const auto result = [](const char* id) {
        return std::string(R"({"role":"tool","tool_call_id":")") + id + R"(","content":"r"})";
    };
    completion_request r;
    const auto both = parse_completion(asked + result("call_b") + "," + result("call_a") + "]}", true, cfg, r);
    BOOST_TEST(!both.has_value(), both->message);
    BOOST_TEST(r.tools.tool_results == 2);
    const std::vector<std::pair<std::string, std::string>> bad = {
        {asked + result("call_a") + "]}",
         "messages[1]: An assistant message with 'tool_calls' must be followed by tool messages responding to each "
         "'tool_call_id'. The following tool_call_ids did not have response messages: call_b"},
        {asked + result("call_a") + R"(,{"role":"user","content":"and?"}]})", "did not have response messages: call_b"},
        {asked + R"({"role":"user","content":"and?"}]})", "did not have response messages: call_a, call_b"},
        {asked + result("call_a") + "," + result("call_a") + "]}",
         "messages[3].role: messages with role 'tool' must be a response to a preceding message with 'tool_calls'"},
    };
    refused(cfg, bad);
}

// vLLM's current shape: thinking in delta.reasoning, the step that ends it one
// chunk with both, usage with the reasoning tokens so far.
BOOST_AUTO_TEST_CASE(thinking_streams_in_the_current_shape) {
    const auto cs = thinking_steps(reasoning_shape::reasoning);
    BOOST_TEST(count_text_tokens(delta_of(cs[0]).at("reasoning").as_string()) == 2);
    BOOST_TEST(!delta_of(cs[0]).contains("content"));
    BOOST_TEST(count_text_tokens(delta_of(cs[1]).at("reasoning").as_string()) == 1);
    BOOST_TEST(count_text_tokens(delta_of(cs[1]).at("content").as_string()) == 1);
    BOOST_TEST(!delta_of(cs[2]).contains("reasoning"));
    const std::vector<std::int64_t> reasoning{2, 3, 3}, completion{2, 4, 5};
    for (std::size_t i = 0; i < cs.size(); ++i) {
        BOOST_TEST(cs[i].at("usage").at("completion_tokens_details").at("reasoning_tokens").as_int64() == reasoning[i]);
        BOOST_TEST(cs[i].at("usage").at("completion_tokens").as_int64() == completion[i]);
    }
    BOOST_TEST(cs[2].at("choices").at(0).at("finish_reason").as_string() == "length");
}

// The older shape: reasoning_content beside content null (and null beside the
// answer), both phases in one chunk only by --quirk thinking-answer-chunk, and no
// completion_tokens_details.
BOOST_AUTO_TEST_CASE(thinking_streams_in_the_older_shape) {
    auto w = chat_writer(reasoning_shape::reasoning_content, 3);
    std::string out;
    w.step(out, 2, 0, {});
    w.step(out, 2, 2, "length");
    const auto cs = events(out);
    BOOST_TEST_REQUIRE(cs.size() == 3u);
    BOOST_TEST(delta_of(cs[0]).at("content").is_null());
    BOOST_TEST(count_text_tokens(delta_of(cs[0]).at("reasoning_content").as_string()) == 2);
    BOOST_TEST(count_text_tokens(delta_of(cs[1]).at("reasoning_content").as_string()) == 1);
    BOOST_TEST(cs[1].at("choices").at(0).at("finish_reason").is_null());
    BOOST_TEST(delta_of(cs[2]).at("reasoning_content").is_null());
    BOOST_TEST(count_text_tokens(delta_of(cs[2]).at("content").as_string()) == 1);
    const std::vector<std::int64_t> completion{2, 3, 4};
    for (std::size_t i = 0; i < cs.size(); ++i) {
        BOOST_TEST(cs[i].at("usage").at("completion_tokens").as_int64() == completion[i]);
        BOOST_TEST(!cs[i].at("usage").as_object().contains("completion_tokens_details"));
    }

    auto shares = chat_writer(reasoning_shape::reasoning_content, 3);
    shares.older_shape_shares = true;
    out.clear();
    shares.step(out, 2, 0, {});
    BOOST_TEST(shares.step(out, 2, 2, "length"));
    const auto joined = events(out);
    BOOST_TEST_REQUIRE(joined.size() == 2u);
    BOOST_TEST(count_text_tokens(delta_of(joined[1]).at("reasoning_content").as_string()) == 1);
    BOOST_TEST(count_text_tokens(delta_of(joined[1]).at("content").as_string()) == 1);
    BOOST_TEST(joined[1].at("usage").at("completion_tokens").as_int64() == 4);
}

// A server without a reasoning parser: the thinking inside the content, <think> opening the
// first of it and </think> closing the last when an answer follows; no usage details.
BOOST_AUTO_TEST_CASE(thinking_streams_between_tags_in_the_content) {
    const auto cs = thinking_steps(reasoning_shape::think_tags);
    const std::string first(delta_of(cs[0]).at("content").as_string());
    const std::string second(delta_of(cs[1]).at("content").as_string());
    BOOST_TEST(first.rfind("<think> ", 0) == 0u, first);
    BOOST_TEST(count_text_tokens(first.substr(7)) == 2);
    const auto close = second.find("</think>");
    BOOST_TEST_REQUIRE(close != std::string::npos, second);
    BOOST_TEST(count_text_tokens(second.substr(0, close)) == 1);
    BOOST_TEST(count_text_tokens(second.substr(close + 8)) == 1);
    BOOST_TEST(!delta_of(cs[0]).contains("reasoning"));
    BOOST_TEST(!cs[1].at("usage").as_object().contains("completion_tokens_details"));

    auto cut = chat_writer(reasoning_shape::think_tags, 3);
    cut.answers = false;  // max_tokens ran out while it thought: no closing tag
    std::string out;
    cut.step(out, 3, 0, "length");
    BOOST_TEST(std::string(delta_of(events(out).at(0)).at("content").as_string()).find("</think>") == std::string::npos);

    chat_extras x;
    x.reasoning = " a b";
    x.shape = reasoning_shape::think_tags;
    auto body = boost::json::parse(completion_response(true, "c", 0, "m", " c", "stop", 3, 3, 0, x)).as_object();
    BOOST_TEST(body.at("choices").at(0).at("message").at("content").as_string() == "<think> a b</think> c");
}

// --parallel-tool-calls: each call opens with its index, id and name, then its argument pieces
// under its index; each call's arguments one JSON object.
BOOST_AUTO_TEST_CASE(parallel_tool_calls_stream_under_their_indexes) {
    auto w = chat_writer(reasoning_shape::reasoning, 0);
    w.tool_call = true;
    w.calls = {{"call_a", R"("search")", 0, 2, 7}, {"call_b", R"("fetch")", 2, 3, 9}};
    std::string out;
    BOOST_TEST(w.step(out, 3, 0, {}));
    BOOST_TEST(w.step(out, 2, 3, "tool_calls"));
    std::vector<std::string> ids(2), arguments(2);
    for (const auto& c : events(out)) {
        const auto& call = delta_of(c).at("tool_calls").at(0).as_object();
        const auto index = static_cast<std::size_t>(call.at("index").as_int64());
        BOOST_TEST_REQUIRE(index < 2u);
        if (call.contains("id")) ids[index] = call.at("id").as_string();
        arguments[index] += call.at("function").at("arguments").as_string();
    }
    BOOST_TEST(ids == (std::vector<std::string>{"call_a", "call_b"}));
    BOOST_TEST(arguments[0] == tool_arguments(7, 2, 2));
    BOOST_TEST(arguments[1] == tool_arguments(9, 3, 3));
    BOOST_TEST(events(out).back().at("usage").at("completion_tokens").as_int64() == 5);
}

// A tool call after the thinking: its id and name first, then an arguments
// piece per step that together are one JSON object of the answer's tokens.
BOOST_AUTO_TEST_CASE(a_tool_call_streams_its_name_then_argument_pieces) {
    auto w = chat_writer(reasoning_shape::reasoning, 1);
    w.tool_call = true;
    w.calls = {{"call_0123456789abcdef", R"("search")", 0, 6, 42}};
    std::string out;
    BOOST_TEST(w.step(out, 3, 0, {}));
    BOOST_TEST(w.step(out, 4, 3, "tool_calls"));
    const auto cs = events(out);
    BOOST_TEST_REQUIRE(cs.size() == 4u);  // thinking, the name, two argument pieces
    BOOST_TEST(delta_of(cs[0]).contains("reasoning"));
    const auto& head = delta_of(cs[1]).at("tool_calls").at(0).as_object();
    BOOST_TEST(head.at("index").as_int64() == 0);
    BOOST_TEST(head.at("id").as_string() == "call_0123456789abcdef");
    BOOST_TEST(head.at("type").as_string() == "function");
    BOOST_TEST(head.at("function").at("name").as_string() == "search");
    BOOST_TEST(head.at("function").at("arguments").as_string() == "");
    BOOST_TEST(cs[1].at("usage").at("completion_tokens").as_int64() == 1);
    std::string arguments;
    for (std::size_t i = 2; i < cs.size(); ++i)
        arguments += delta_of(cs[i]).at("tool_calls").at(0).at("function").at("arguments").as_string();
    BOOST_TEST(cs[3].at("choices").at(0).at("finish_reason").as_string() == "tool_calls");
    BOOST_TEST(cs[3].at("usage").at("completion_tokens").as_int64() == 7);
    BOOST_TEST(arguments == tool_arguments(42, 6, 6));
    const auto parsed = boost::json::parse(arguments).as_object();
    BOOST_TEST(count_text_tokens(parsed.at("query").as_string()) == 5);
    BOOST_TEST(count_text_tokens(arguments) == 6);  // as the words tokenizer counts it sent back
    BOOST_TEST(tool_arguments(1, 1, 1) == R"({"query":""})");
}

// Not streamed: message.reasoning (or reasoning_content), a tool call with content null.
BOOST_AUTO_TEST_CASE(non_streamed_thinking_and_tool_calls) {
    chat_extras x;
    x.reasoning = " a b";
    x.reasoning_usage = true;
    x.reasoning_tokens = 2;
    auto body = boost::json::parse(completion_response(true, "c", 0, "m", " c", "stop", 3, 3, 0, x)).as_object();
    const auto& message = body.at("choices").at(0).at("message").as_object();
    BOOST_TEST(message.at("reasoning").as_string() == " a b");
    BOOST_TEST(message.at("content").as_string() == " c");
    BOOST_TEST(body.at("usage").at("completion_tokens_details").at("reasoning_tokens").as_int64() == 2);
    x.shape = reasoning_shape::reasoning_content;
    x.reasoning_usage = false;
    x.calls = {{"call_1", "search", R"({"query":" w"})"}};
    body = boost::json::parse(completion_response(true, "c", 0, "m", "", "tool_calls", 3, 4, 0, x)).as_object();
    const auto& call = body.at("choices").at(0).at("message").as_object();
    BOOST_TEST(call.at("reasoning_content").as_string() == " a b");
    BOOST_TEST(call.at("content").is_null());
    BOOST_TEST(call.at("tool_calls").at(0).at("function").at("arguments").as_string() == R"({"query":" w"})");
    BOOST_TEST(call.at("tool_calls").at(0).at("id").as_string() == "call_1");
    BOOST_TEST(body.at("choices").at(0).at("finish_reason").as_string() == "tool_calls");
    BOOST_TEST(!body.at("usage").as_object().contains("completion_tokens_details"));
}

BOOST_AUTO_TEST_SUITE_END()
