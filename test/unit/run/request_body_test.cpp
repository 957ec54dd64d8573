#include <boost/test/unit_test.hpp>

#include "openloop/run/request_body.hpp"
#include "openloop/load/session.hpp"
#include "openloop/base/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <stdexcept>

using namespace openloop;
namespace json = boost::json;

namespace {

json::object body_of(const body_options& o, const request_spec& spec) {
    return json::parse(request_body(o).json(spec, "m")).as_object();
}

request_spec spec(std::string prompt, int max_tokens) {
    request_spec s;
    s.prompt = std::move(prompt);
    s.max_tokens = max_tokens;
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(chat_asks_for_a_stream_with_usage_on_every_chunk) {
    body_options o;
    const json::object b = body_of(o, spec("hello there", 7));
    BOOST_TEST(json::serialize(b.at("messages")) == R"([{"role":"user","content":"hello there"}])");
    BOOST_TEST(b.at("model") == "m");
    BOOST_TEST(b.at("max_tokens") == 7);
    BOOST_TEST(b.at("temperature") == 0.0);
    BOOST_TEST(b.at("seed") == 0);
    BOOST_TEST(b.at("stream") == true);
    BOOST_TEST(json::serialize(b.at("stream_options")) == R"({"include_usage":true,"continuous_usage_stats":true})");
    BOOST_TEST(!b.contains("prompt"));
    BOOST_TEST(!b.contains("ignore_eos"));
}

BOOST_AUTO_TEST_CASE(completions_send_text_or_token_ids) {
    body_options o;
    o.endpoint = endpoint_kind::completions;
    o.sampling_seed = -1;
    o.continuous_usage = false;
    const json::object text = body_of(o, spec("a b c", 3));
    BOOST_TEST(text.at("prompt") == "a b c");
    BOOST_TEST(!text.contains("messages"));
    BOOST_TEST(!text.contains("seed"));
    BOOST_TEST(json::serialize(text.at("stream_options")) == R"({"include_usage":true})");
    request_spec ids = spec("ignored", 3);
    ids.prompt_ids = {5, 17, 2};
    BOOST_TEST(json::serialize(body_of(o, ids).at("prompt")) == "[5,17,2]");
}

BOOST_AUTO_TEST_CASE(responses_send_the_prompt_as_input_with_max_output_tokens) {
    body_options o;
    o.endpoint = endpoint_kind::responses;
    o.ignore_eos = true;
    request_spec ids = spec("tell me \"more\"", 9);
    ids.prompt_ids = {5, 17};  // text only, as for chat: the Responses API takes no token ids
    const json::object b = body_of(o, ids);
    BOOST_TEST(b.at("input") == "tell me \"more\"");
    BOOST_TEST(b.at("max_output_tokens") == 9);
    BOOST_TEST(b.at("min_tokens") == 9);  // vLLM's extensions, as for chat
    BOOST_TEST(b.at("ignore_eos") == true);
    BOOST_TEST(b.at("temperature") == 0.0);
    BOOST_TEST(b.at("seed") == 0);
    BOOST_TEST(b.at("stream") == true);
    // Its stream ends with the usage anyway, and the API knows no stream_options for it.
    for (const char* key : {"stream_options", "max_tokens", "messages", "prompt"}) BOOST_TEST(!b.contains(key), key);
    o.stream = false;
    BOOST_TEST(body_of(o, ids).at("stream") == false);
}

BOOST_AUTO_TEST_CASE(ignore_eos_holds_the_length_with_min_tokens) {
    body_options o;
    o.ignore_eos = true;
    const json::object b = body_of(o, spec("x", 12));
    BOOST_TEST(b.at("ignore_eos") == true);
    BOOST_TEST(b.at("min_tokens") == 12);
}

BOOST_AUTO_TEST_CASE(extra_body_fields_win_over_ours) {
    body_options o;
    o.ignore_eos = true;
    o.extra_body = json::parse(R"({"top_p":0.9,"temperature":0.7,"seed":3,"min_tokens":1,"stream_options":{"include_usage":false}})").as_object();
    const json::object b = body_of(o, spec("x", 12));
    BOOST_TEST(b.at("top_p") == 0.9);
    BOOST_TEST(b.at("temperature") == 0.7);
    BOOST_TEST(b.at("seed") == 3);
    BOOST_TEST(b.at("min_tokens") == 1);
    BOOST_TEST(json::serialize(b.at("stream_options")) == R"({"include_usage":false})");
    // What the run must control stays ours.
    o.extra_body = json::parse(R"({"stream":false,"max_tokens":1,"model":"other"})").as_object();
    const json::object forced = body_of(o, spec("x", 12));
    BOOST_TEST(forced.at("stream") == true);
    BOOST_TEST(forced.at("max_tokens") == 12);
    BOOST_TEST(forced.at("model") == "m");
}

// Prompts reach the body as Boost.JSON would write them, whatever they hold.
BOOST_AUTO_TEST_CASE(prompt_text_is_escaped) {
    body_options o;
    std::string all;
    for (int c = 1; c < 256; ++c) all.push_back(static_cast<char>(c));
    for (const std::string& p : {std::string("plain words"), std::string("quote \" backslash \\ slash /"),
                                 std::string("tab\tnew\nline\r\x01\x1f\x7f"), std::string("\xc3\xa9\xe4\xbd\xa0"),
                                 std::string("nul \0 inside", 12), all, std::string()}) {
        json::parse_options raw;
        raw.allow_invalid_utf8 = true;  // bytes pass as they are, as Boost.JSON writes them
        const json::object b = json::parse(request_body(o).json(spec(p, 4), "m"), {}, raw).as_object();
        BOOST_TEST(b.at("messages").as_array()[0].as_object().at("content").as_string() == p);
        std::string direct;
        append_json_escaped(direct, p);
        BOOST_TEST(direct == json::serialize(json::string(p)).substr(1, json::serialize(json::string(p)).size() - 2));
    }
}

// The template is made once per model; each request fills in its own parts.
BOOST_AUTO_TEST_CASE(each_request_fills_the_template_with_its_own_parts) {
    body_options o;
    o.ignore_eos = true;
    o.endpoint = endpoint_kind::completions;
    const request_body body(o);
    for (int i = 1; i < 5; ++i) {
        request_spec s = spec("p" + std::to_string(i), 10 * i);
        if (i % 2 == 0) s.prompt_ids = {i, i + 1};
        const json::object b = json::parse(body.json(s, i < 3 ? "a" : "b")).as_object();
        BOOST_TEST(b.at("max_tokens") == 10 * i);
        BOOST_TEST(b.at("min_tokens") == 10 * i);
        BOOST_TEST(b.at("model").as_string() == (i < 3 ? "a" : "b"));
        if (i % 2 == 0) {
            BOOST_TEST(json::serialize(b.at("prompt")) == "[" + std::to_string(i) + "," + std::to_string(i + 1) + "]");
        } else {
            BOOST_TEST(b.at("prompt").as_string() == "p" + std::to_string(i));
        }
    }
}

BOOST_AUTO_TEST_CASE(a_later_turn_carries_the_conversation_before_its_message) {
    body_options o;
    conversation history;
    history.add("user") = "first \"question\"";
    history.add("assistant") = "an answer\nover lines";
    request_spec s = spec("second", 5);
    s.history = &history;
    const json::object b = body_of(o, s);
    BOOST_TEST(json::serialize(b.at("messages")) ==
               R"([{"role":"user","content":"first \"question\""},{"role":"assistant","content":"an answer\nover lines"},)"
               R"({"role":"user","content":"second"}])");
    // An empty conversation (a session's first turn) is the plain message.
    history.clear();
    BOOST_TEST(json::serialize(body_of(o, s).at("messages")) == R"([{"role":"user","content":"second"}])");
}
