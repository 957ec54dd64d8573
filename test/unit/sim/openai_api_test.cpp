#include <boost/test/unit_test.hpp>

#include "openloop/sim/event_writer.hpp"
#include "openloop/sim/openai_api.hpp"

#include <boost/json.hpp>

#include <limits>
#include <string>
#include <vector>

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
