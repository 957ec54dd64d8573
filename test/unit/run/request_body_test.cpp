#include <boost/test/unit_test.hpp>

#include "openloop/run/request_body.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/tools.hpp"
#include "openloop/base/json_text.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <stdexcept>

BOOST_AUTO_TEST_SUITE(unit_request_body)

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

namespace {

// A session after an agent's step: the user's task, the assistant's call, the tool's result.
void agent_history(conversation& history) {
    history.add("user") = "look it up";
    chat_message& call = history.add_message("assistant");
    *call.calls.at(0) = {"call_0123456789abcdef", "tool_1", R"({"query":"river \"stone\""})"};
    *call.calls.at(1) = {"call_1", "tool_2", "{}"};  // a second call made at once
    chat_message& result = history.add_message("tool");
    result.call_id = "call_0123456789abcdef";
    result.text = "cloud light paper";
    chat_message& second = history.add_message("tool");
    second.call_id = "call_1";
    second.text = "sky";
}

const std::string agent_messages =
    R"([{"role":"user","content":"look it up"},)"
    R"({"role":"assistant","content":null,"tool_calls":[{"id":"call_0123456789abcdef","type":"function",)"
    R"("function":{"name":"tool_1","arguments":"{\"query\":\"river \\\"stone\\\"\"}"}},)"
    R"({"id":"call_1","type":"function","function":{"name":"tool_2","arguments":"{}"}}]},)"
    R"({"role":"tool","tool_call_id":"call_0123456789abcdef","content":"cloud light paper"},)"
    R"({"role":"tool","tool_call_id":"call_1","content":"sky"}])";

}  // namespace

BOOST_AUTO_TEST_CASE(an_agents_requests_carry_the_tools_and_its_calls_exactly) {
    body_options o;
    o.tools = tool_schemas(3, 5, 42);
    o.tool_choice = tool_choice_value("required");
    conversation history;
    agent_history(history);
    // A tool result's request: the history is the whole message list, no new user message.
    request_spec s = spec("not sent", 7);
    s.history = &history;
    s.tool_result = true;
    const std::string text = request_body(o).json(s, "m");
    BOOST_TEST(text.find(agent_messages) != std::string::npos, text);
    const json::object b = json::parse(text).as_object();
    BOOST_TEST(json::serialize(b.at("messages")) == agent_messages);
    BOOST_TEST(b.at("tool_choice") == "required");
    BOOST_TEST(b.at("max_tokens") == 7);
    const json::array& tools = b.at("tools").as_array();
    BOOST_TEST_REQUIRE(tools.size() == 3u);
    for (std::size_t k = 0; k < tools.size(); ++k) {
        const json::object& fn = tools[k].at("function").as_object();
        BOOST_TEST(tools[k].at("type") == "function");
        BOOST_TEST(fn.at("name").as_string() == "tool_" + std::to_string(k));
        BOOST_TEST(count_text_tokens(fn.at("description").as_string()) == 5);
        BOOST_TEST(json::serialize(fn.at("parameters")) ==
                   R"({"type":"object","properties":{"query":{"type":"string","description":"what to look up"}},"required":["query"]})");
    }
    // The same tools for the same seed (a prefix servers cache across sessions and runs), others for another.
    BOOST_TEST(json::serialize(tool_schemas(3, 5, 42)) == json::serialize(tools));
    BOOST_TEST(json::serialize(tool_schemas(3, 5, 43)) != json::serialize(tools));

    // The next user turn: the same history, then its message.
    s.tool_result = false;
    s.prompt = "thanks";
    const json::object next = json::parse(request_body(o).json(s, "m")).as_object();
    const std::string with_user = agent_messages.substr(0, agent_messages.size() - 1) + R"(,{"role":"user","content":"thanks"}])";
    BOOST_TEST(json::serialize(next.at("messages")) == with_user);
    // A named function is OpenAI's object.
    BOOST_TEST(json::serialize(tool_choice_value("tool_2")) == R"({"type":"function","function":{"name":"tool_2"}})");
}

BOOST_AUTO_TEST_CASE(response_format_and_reasoning_effort_are_sent_as_given) {
    body_options o;
    o.response_format = json::object{{"type", "json_object"}};
    o.reasoning_effort = "low";
    const json::object chat = body_of(o, spec("p", 3));
    BOOST_TEST(json::serialize(chat.at("response_format")) == R"({"type":"json_object"})");
    BOOST_TEST(chat.at("reasoning_effort") == "low");
    BOOST_TEST(!chat.contains("tools"));
    BOOST_TEST(!chat.contains("tool_choice"));
    // Responses: reasoning.effort.
    o.endpoint = endpoint_kind::responses;
    o.response_format = nullptr;
    const json::object responses = body_of(o, spec("p", 3));
    BOOST_TEST(json::serialize(responses.at("reasoning")) == R"({"effort":"low"})");
    BOOST_TEST(!responses.contains("reasoning_effort"));
    // --extra-body's fields win, as for every other field.
    o.endpoint = endpoint_kind::chat;
    o.extra_body = json::object{{"reasoning_effort", "high"}};
    BOOST_TEST(body_of(o, spec("p", 3)).at("reasoning_effort") == "high");
}

BOOST_AUTO_TEST_CASE(the_tools_cost_is_probed_without_and_with_them) {
    const json::array tools = tool_schemas(2, 4, 1);
    const tools_probe p = tools_probe_calls("/v1", "m", tools, tool_choice_value("auto"), json::object{{"top_p", 0.5}});
    const json::object without = json::parse(p.without.body).as_object();
    const json::object with = json::parse(p.with.body).as_object();
    BOOST_TEST(p.with.path == "/v1/chat/completions");
    BOOST_TEST(without.at("max_tokens") == 1);
    BOOST_TEST(!without.contains("tools"));
    BOOST_TEST(with.at("top_p") == 0.5);
    BOOST_TEST(with.at("tools") == json::value(tools));
    BOOST_TEST(with.at("tool_choice") == "auto");
    // The rest of the two requests is the same: their usage differs by the tools alone.
    json::object rest = with;
    rest.erase("tools");
    rest.erase("tool_choice");
    BOOST_TEST(rest == without);
}

// A --model mix: one template per model index, each request's body names its own model.
BOOST_AUTO_TEST_CASE(each_model_of_a_mix_keeps_its_own_template) {
    body_options o;
    const request_body body(o);
    const char* names[] = {"base", "sql-lora", "chat-lora"};
    for (const int m : {0, 2, 1, 0, 2}) {
        request_spec s = spec("hello", 7);
        s.model = static_cast<std::uint8_t>(m);
        const json::object b = json::parse(body.json(s, names[m])).as_object();
        BOOST_TEST(b.at("model").as_string() == names[m]);
        BOOST_TEST(b.at("max_tokens") == 7);
        BOOST_TEST(b.at("messages").as_array().back().at("content").as_string() == "hello");
    }
}

namespace {

// Two 16x16 JPEGs and one 1-second clip: images 0-1, the clip 2.
std::shared_ptr<const media_set> small_media() {
    media_config c;
    c.images = length_dist::fixed(2);
    c.image_sizes = {image_bucket{16, 16, 1}};
    c.audios = 1;
    c.audio_seconds = length_dist::fixed(1);
    return std::make_shared<const media_set>(c, 1, 1);
}

}  // namespace

BOOST_AUTO_TEST_CASE(media_goes_in_the_users_content_parts_after_its_text) {
    body_options o;
    o.media = small_media();
    request_spec s = spec("look at these", 9);
    s.media = {1, 0, 2};
    const json::object b = body_of(o, s);
    const json::array& messages = b.at("messages").as_array();
    BOOST_REQUIRE(messages.size() == 1u);
    BOOST_TEST(messages[0].at("role") == "user");
    const json::array& parts = messages[0].at("content").as_array();
    BOOST_REQUIRE(parts.size() == 4u);
    BOOST_TEST(json::serialize(parts[0]) == R"({"type":"text","text":"look at these"})");
    BOOST_TEST(parts[1].at("type") == "image_url");
    BOOST_TEST(parts[1].at("image_url").at("url") == json::string(o.media->item(1).payload));
    BOOST_TEST(parts[2].at("image_url").at("url") == json::string(o.media->item(0).payload));
    BOOST_TEST(parts[1].at("image_url").at("url").as_string().starts_with("data:image/jpeg;base64,"));
    BOOST_TEST(parts[3].at("type") == "input_audio");
    BOOST_TEST(parts[3].at("input_audio").at("format") == "wav");
    BOOST_TEST(parts[3].at("input_audio").at("data") == json::string(o.media->item(2).payload));
    // The rest of the body is a text request's.
    BOOST_TEST(b.at("max_tokens") == 9);
    BOOST_TEST(b.at("stream") == true);
}

BOOST_AUTO_TEST_CASE(a_request_without_media_is_sent_as_before_in_a_run_with_media) {
    body_options plain, with;
    with.media = small_media();
    const request_spec s = spec("just text", 4);
    BOOST_TEST(request_body(with).json(s, "m") == request_body(plain).json(s, "m"));
}

BOOST_AUTO_TEST_CASE(spliced_payloads_between_the_bodys_pieces_are_the_whole_body) {
    body_options o;
    o.media = small_media();
    request_spec s = spec("p", 2);
    s.media = {0, 2};
    const request_body body(o);
    std::string pieces;
    std::vector<body_splice> splices;
    body.append(pieces, s, "m", &splices);
    BOOST_REQUIRE(splices.size() == 2u);
    BOOST_TEST(splices[0].payload.data() == o.media->item(0).payload.data());  // the set's own memory: no copy
    std::string joined;
    std::size_t at = 0;
    for (const body_splice& sp : splices) {
        joined.append(pieces, at, sp.at - at).append(sp.payload);
        at = sp.at;
    }
    joined.append(pieces, at);
    BOOST_TEST(joined == body.json(s, "m"));
    BOOST_TEST(pieces.size() + splices[0].payload.size() + splices[1].payload.size() == joined.size());
}

BOOST_AUTO_TEST_CASE(a_transcription_is_a_form_with_the_clips_wav_bytes_and_the_stream_fields) {
    media_config c;
    c.audios = 1;
    c.audio_seconds = length_dist::fixed(1);
    c.raw_audio = true;
    body_options o;
    o.endpoint = endpoint_kind::transcriptions;
    o.media = std::make_shared<const media_set>(c, 1, 1);
    const std::string& wav = o.media->item(0).payload;
    BOOST_TEST(wav.substr(0, 4) == "RIFF");  // the file as it is, not base64
    request_spec s = spec("never sent", 9);
    s.media = {0};
    const std::string b = request_body(o).json(s, "whisper");
    const std::string d = "--openloop-form-7d1e5c3a9b2f4e60";
    const std::string expected = d + "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"clip.wav\"\r\n"
                                     "Content-Type: audio/wav\r\n\r\n" + wav + "\r\n" +
                                 d + "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper\r\n" +
                                 d + "\r\nContent-Disposition: form-data; name=\"stream\"\r\n\r\ntrue\r\n" +
                                 d + "\r\nContent-Disposition: form-data; name=\"stream_include_usage\"\r\n\r\ntrue\r\n" +
                                 d + "\r\nContent-Disposition: form-data; name=\"stream_continuous_usage_stats\"\r\n\r\ntrue\r\n" +
                                 d + "\r\nContent-Disposition: form-data; name=\"response_format\"\r\n\r\njson\r\n" + d + "--\r\n";
    BOOST_TEST(b == expected);
    o.stream = false;
    const std::string unstreamed = request_body(o).json(s, "whisper");
    BOOST_TEST(unstreamed.find("name=\"stream\"\r\n\r\nfalse\r\n") != std::string::npos);
    BOOST_TEST(unstreamed.find("stream_include_usage") == std::string::npos);
}

// --system-prompt: the first message of every chat request, before a session's history,
// a tool result's request and media alike.
BOOST_AUTO_TEST_CASE(a_system_prompt_leads_every_chat_requests_messages) {
    body_options o;
    o.system_prompt = "Answer \"briefly\".";
    const std::string system = R"({"role":"system","content":"Answer \"briefly\"."})";
    request_spec s = spec("hello", 5);
    BOOST_TEST(json::serialize(body_of(o, s).at("messages")) == "[" + system + R"(,{"role":"user","content":"hello"}])");
    conversation history;
    agent_history(history);
    s.history = &history;
    s.tool_result = true;
    BOOST_TEST(json::serialize(body_of(o, s).at("messages")) == "[" + system + "," + agent_messages.substr(1));
    s.tool_result = false;
    const std::string with_user = "[" + system + "," + agent_messages.substr(1, agent_messages.size() - 2) +
                                  R"(,{"role":"user","content":"hello"}])";
    BOOST_TEST(json::serialize(body_of(o, s).at("messages")) == with_user);
    o.media = small_media();
    request_spec m = spec("look", 3);
    m.media = {0};
    const json::object b = body_of(o, m);
    const json::array& messages = b.at("messages").as_array();
    BOOST_TEST_REQUIRE(messages.size() == 2u);
    BOOST_TEST(json::serialize(messages[0]) == system);
    BOOST_TEST(messages[1].at("content").as_array().size() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
