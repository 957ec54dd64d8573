#define BOOST_TEST_MODULE openai_api
#include <boost/test/unit_test.hpp>

#include "openloop/sim/event_writer.hpp"
#include "openloop/sim/openai_api.hpp"

#include <boost/json.hpp>

#include <string>

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
