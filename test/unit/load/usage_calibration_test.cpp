#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/load/calibration.hpp"
#include "openloop/load/calibration_cache.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/usage_calibration.hpp"
#include "openloop/load/usage_probe.hpp"
#include "fake_subword.hpp"
#include "test_http.hpp"

#include <boost/json.hpp>

#include <filesystem>
#include <fstream>

BOOST_AUTO_TEST_SUITE(unit_usage_calibration)

// Lengths for servers without a tokenize endpoint: the probes' request and
// answer, and the usage, local and auto calibrations against fake servers
// that count with a known tokenizer and template.

using namespace openloop;
namespace json = boost::json;

namespace {

// The same tokenizer, local: one BOS when asked for specials.
class subword_tokenizer : public local_tokenizer {
public:
    std::vector<std::int32_t> encode(std::string_view text, bool add_special) const override {
        std::vector<std::int32_t> ids(static_cast<std::size_t>(fake_count(text, 0) + (add_special ? 1 : 0)), 7);
        return ids;
    }
    std::string decode(std::span<const std::int32_t>, bool) const override { return {}; }
    std::size_t vocab_size() const override { return 100; }
    std::string description() const override { return "subword test tokenizer"; }
};

// An OpenAI-shaped server whose usage counts the content with fake_count
// (or one per word) plus `added` template tokens, and which has no /tokenize.
// glue: the template writes the content right after its own text ("User:" + content),
// so a first word of an even number of letters merges with it into one token more;
// glue_end: the same for the last word and the text after the content.
struct fake_server {
    int added = 0;
    bool usage = true;
    bool words = false;
    bool glue = false;
    bool glue_end = false;
    int posts = 0;
    std::pair<int, std::string> operator()(const http_call& c) {
        ++posts;
        if (c.path == "/tokenize" || c.path == "/apply-template" || c.path == "/chat_tokenize") return {404, R"({"detail":"Not Found"})"};
        const auto body = json::parse(c.body).as_object();
        BOOST_TEST(body.at("max_tokens").as_int64() == 1);
        BOOST_TEST(!body.at("stream").as_bool());
        const bool chat = c.path == "/v1/chat/completions";
        const json::array* messages = chat ? &body.at("messages").as_array() : nullptr;
        const std::string text(chat ? messages->back().at("content").as_string() : body.at("prompt").as_string());
        int content = words ? static_cast<int>(std::count(text.begin(), text.end(), ' ')) + 1 : fake_count(text, 0);
        // A system message before the user's: its header's 3 tokens and its text.
        if (chat && messages->size() == 2) {
            BOOST_TEST(messages->front().at("role").as_string() == "system");
            content += 3 + fake_count(messages->front().at("content").as_string(), 0);
        }
        const std::size_t first_space = std::min(text.find(' '), text.size());
        const std::size_t last_space = text.rfind(' ');
        const std::size_t last_len = last_space == std::string::npos ? text.size() : text.size() - last_space - 1;
        if (glue && first_space % 2 == 0) ++content;
        if (glue_end && last_len % 2 == 0) ++content;
        json::object answer{{"id", "x"}, {"choices", json::array{}}};
        if (usage) answer["usage"] = json::object{{"prompt_tokens", content + added}, {"completion_tokens", 1}};
        return {200, json::serialize(answer)};
    }
};

// A tokenizer whose vocabulary has no token for any text.
class silent_tokenizer : public local_tokenizer {
public:
    std::vector<std::int32_t> encode(std::string_view, bool) const override { return {}; }
    std::string decode(std::span<const std::int32_t>, bool) const override { return {}; }
    std::size_t vocab_size() const override { return 0; }
    std::string description() const override { return "hf silent.json (BPE, 0 tokens)"; }
};

const http_get_fn no_get = [](const std::string&) -> std::string { throw std::runtime_error("no GET expected"); };

calibration_request request(std::string_view choice) {
    calibration_request r;
    r.choice = parse_tokenizer(choice);
    r.model = "m";
    r.cache_dir = "";
    return r;
}

// Builds prompts of assorted lengths and counts how many the server counts as intended.
int exact_of(const calibration_result& c, fake_server& server, int n, const std::string& system = {}) {
    int exact = 0;
    for (int i = 0; i < n; ++i) {
        std::string text;
        std::vector<std::int32_t> ids;
        const int want = c.builder.floor() + 20 + 37 * i;
        c.builder.append(text, ids, want, static_cast<std::uint64_t>(i));
        const auto [status, body] = server(usage_probe_call("/v1", "m", text, true, {}, system));
        if (read_usage_answer(status, body).prompt_tokens == want) ++exact;
    }
    return exact;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_probe_asks_for_one_token_and_keeps_the_runs_template_switches) {
    const json::object extra{{"chat_template_kwargs", json::object{{"enable_thinking", false}}},
                             {"max_tokens", 500},
                             {"stream", true},
                             {"top_p", 0.5}};
    const http_call chat = usage_probe_call("/v1", "m", "hello there", true, extra);
    BOOST_TEST(chat.path == "/v1/chat/completions");
    const auto body = json::parse(chat.body).as_object();
    BOOST_TEST(body.at("messages").as_array()[0].as_object().at("content").as_string() == "hello there");
    BOOST_TEST(body.at("max_tokens").as_int64() == 1);
    BOOST_TEST(!body.at("stream").as_bool());
    BOOST_TEST(body.contains("chat_template_kwargs"));
    BOOST_TEST(body.at("top_p").as_double() == 0.5);
    const http_call text = usage_probe_call("/gw/v1", "m", "hello", false, {});
    BOOST_TEST(text.path == "/gw/v1/completions");
    BOOST_TEST(json::parse(text.body).as_object().at("prompt").as_string() == "hello");
}

BOOST_AUTO_TEST_CASE(an_answer_gives_its_prompt_tokens_or_says_why_not) {
    BOOST_TEST(*read_usage_answer(200, R"({"usage":{"prompt_tokens":42}})").prompt_tokens == 42);
    const auto refused = read_usage_answer(400, R"({"error":{"message":"max_tokens too small"}})");
    BOOST_TEST(!refused.prompt_tokens);
    BOOST_TEST(refused.problem == "HTTP 400: max_tokens too small");
    BOOST_TEST(read_usage_answer(200, R"({"choices":[]})").problem == "the answer has no usage.prompt_tokens");
    BOOST_TEST(read_usage_answer(200, "data: {}").problem == "the answer is not a JSON object");
    BOOST_TEST(!read_usage_answer(200, R"({"usage":{"prompt_tokens":-3}})").prompt_tokens);
}

BOOST_AUTO_TEST_CASE(usage_mode_measures_every_word_and_caches_the_costs) {
    test_http::temp_dir dir;
    fake_server server{.added = 11};
    auto r = request("usage");
    r.cache_dir = dir.file("cache");
    std::vector<std::string> said;
    r.say = [&](const std::string& line) { said.push_back(line); };
    const http_post_fn post = [&](const http_call& c) { return server(c); };
    const auto first = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(first.check.exact == first.check.samples);
    BOOST_TEST(server.posts == usage_probe_requests);
    BOOST_TEST_REQUIRE(said.size() == 1u);
    BOOST_TEST(said[0].find(std::to_string(usage_probe_requests - 1) + " requests of max_tokens 1") != std::string::npos, said[0]);
    BOOST_TEST(exact_of(first, server, 12) == 12);

    server.posts = 0;
    const auto again = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(again.from_cache);
    BOOST_TEST(server.posts == 1 + r.verify_samples);  // the fingerprint and the samples
    BOOST_TEST(said.size() == 1u);  // nothing to announce
}

BOOST_AUTO_TEST_CASE(a_local_tokenizer_learns_the_template_from_two_probes) {
    fake_server server{.added = 9};
    auto r = request("hf:unused");
    r.local = std::make_shared<subword_tokenizer>();
    const http_post_fn post = [&](const http_call& c) { return server(c); };
    const auto c = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(c.label == "subword test tokenizer + 9 chat template tokens from the server's usage");
    BOOST_TEST(c.check.exact == c.check.samples);
    BOOST_TEST(server.posts == 2 + r.verify_samples);
    BOOST_TEST(exact_of(c, server, 12) == 12);
}

BOOST_AUTO_TEST_CASE(a_local_tokenizer_that_is_not_the_servers_is_refused) {
    fake_server server{.added = 5, .words = true};
    auto r = request("hf:unused");
    r.local = std::make_shared<subword_tokenizer>();
    const http_post_fn post = [&](const http_call& c) { return server(c); };
    try {
        calibrate_tokenizer(r, post, no_get);
        BOOST_FAIL("expected a refusal");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find("is it the served model's tokenizer?") != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_CASE(a_local_tokenizer_without_usage_counts_the_content_and_says_so) {
    fake_server server{.added = 9, .usage = false};
    auto r = request("hf:unused");
    r.local = std::make_shared<subword_tokenizer>();
    const http_post_fn post = [&](const http_call& c) { return server(c); };
    const auto c = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(c.label == "subword test tokenizer (no chat template)");
    BOOST_TEST(c.note.find("the chat template's tokens are not counted") != std::string::npos, c.note);
    std::string text;
    std::vector<std::int32_t> ids;
    c.builder.append(text, ids, 300, 3);
    BOOST_TEST(fake_count(text, 0) == 300);
}

BOOST_AUTO_TEST_CASE(auto_tries_the_local_file_then_usage_then_words_with_a_warning) {
    fake_server server{.added = 4};
    const http_post_fn post = [&](const http_call& c) { return server(c); };
    auto r = request("auto");
    r.local = std::make_shared<subword_tokenizer>();
    BOOST_TEST(calibrate_tokenizer(r, post, no_get).label.find("subword test tokenizer") == 0u);

    r.local = nullptr;
    const auto usage = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(usage.label == "usage (the server's prompt_tokens, chat template included)");
    BOOST_TEST(exact_of(usage, server, 6) == 6);

    server.usage = false;
    const auto words = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(words.label == "words (no tokenize endpoint, no usage counts)");
    BOOST_TEST(words.note.find("WARNING") != std::string::npos);
    BOOST_TEST(words.note.find("no usage.prompt_tokens") != std::string::npos, words.note);
}

// A local tokenizer that gives a word no token can build no prompt: bad input naming it, under hf: and
// under auto alike (auto does not pass a broken file over for the server's usage).
BOOST_AUTO_TEST_CASE(a_local_tokenizer_that_gives_no_token_is_bad_input) {
    fake_server server{.added = 4};
    const http_post_fn post = [&](const http_call& c) { return server(c); };
    for (const std::string choice : {"hf:unused", "auto"}) {
        auto r = request(choice);
        r.local = std::make_shared<silent_tokenizer>();
        try {
            calibrate_tokenizer(r, post, no_get);
            BOOST_FAIL(choice << ": expected a refusal");
        } catch (const input_error& e) {
            BOOST_TEST(std::string(e.what()).find("--tokenizer hf silent.json (BPE, 0 tokens): \"the\" is 0 tokens") == 0u,
                       choice << ": " << e.what());
        }
    }
}

// ---- issue 41: templates longer than a word's cost, glued to the content ---------------

namespace {

// --tokenizer usage against a fake server of `added` template tokens, cached in a directory of its own.
// hf: (the subword test tokenizer) against server, as r asks.
calibration_result local_against(fake_server& server, calibration_request r = request("hf:unused")) {
    r.local = std::make_shared<subword_tokenizer>();
    return calibrate_tokenizer(r, [&](const http_call& c) { return server(c); }, no_get);
}

struct cached_usage {
    test_http::temp_dir dir;
    fake_server server;
    calibration_request r = request("usage");
    http_post_fn post = [this](const http_call& c) { return server(c); };
    explicit cached_usage(int added) : server{.added = added} { r.cache_dir = dir.file("cache"); }
};

}  // namespace

// gpt-oss's Harmony template adds 67 tokens to every chat prompt: every word's
// cost as the first word is above the 64 a word may cost, and the costs must
// still be cached and reused, their samples no shorter than that floor.
BOOST_AUTO_TEST_CASE(a_long_templates_usage_costs_are_cached_and_reused) {
    cached_usage u(67);
    auto& [dir, server, r, post] = u;
    const auto first = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(first.check.exact == first.check.samples, first.note);
    BOOST_TEST(first.note.find("8 of 8 sample prompts") != std::string::npos, first.note);
    server.posts = 0;
    const auto again = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(again.from_cache, again.note);
    BOOST_TEST(server.posts == 1 + r.verify_samples);
    BOOST_TEST(again.note.find(", cached: 8 of 8") != std::string::npos, again.note);
}

// A cache that cannot serve (unreadable, or its samples no longer exact) is
// measured again, and the run says why instead of paying 138 probes silently.
BOOST_AUTO_TEST_CASE(a_cache_set_aside_is_named_with_the_reason) {
    cached_usage u(5);
    auto& [dir, server, r, post] = u;
    calibrate_tokenizer(r, post, no_get);
    const std::string path = calibration_cache_path(r.cache_dir, "usage", "m", true,
                                                    fake_count(calibration_probe_text, 0) + server.added);
    BOOST_TEST_REQUIRE(std::filesystem::exists(path));
    std::ofstream(path) << R"({"label": "x", "trailing": 0, "first": [1, 2]})";
    std::vector<std::string> said;
    r.say = [&](const std::string& line) { said.push_back(line); };
    const auto again = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(!again.from_cache);
    BOOST_TEST(again.check.exact == again.check.samples);
    BOOST_TEST_REQUIRE(said.size() == 2u);  // the cache set aside, then the probes announced
    BOOST_TEST(said[0].find(path) != std::string::npos, said[0]);
    BOOST_TEST(said[0].find("\"first\" must be an array") != std::string::npos, said[0]);
}

// The check's prompts start at the template's floor: a local tokenizer under a
// 40-token template is exact on all 8, and says so.
BOOST_AUTO_TEST_CASE(sample_prompts_stay_above_the_templates_floor) {
    fake_server server{.added = 40};
    const auto c = local_against(server);
    BOOST_TEST(c.check.exact == c.check.samples, c.note);
    BOOST_TEST(c.check.samples == 8);
    BOOST_TEST(c.note.find("8 of 8 sample prompts") != std::string::npos, c.note);
}

// "User:" + content: the first word's cost depends on the word. The check
// misses, so every word's cost as the first word is measured in place.
BOOST_AUTO_TEST_CASE(a_template_glued_to_the_first_word_is_measured_in_place) {
    fake_server server{.added = 6, .glue = true};
    auto r = request("hf:unused");
    std::vector<std::string> said;
    r.say = [&](const std::string& line) { said.push_back(line); };
    const auto c = local_against(server, r);
    BOOST_TEST(c.check.exact == c.check.samples, c.note);
    BOOST_TEST(exact_of(c, server, 12) == 12);
    BOOST_TEST(c.label.find("first words' costs from the server's usage") != std::string::npos, c.label);
    BOOST_TEST_REQUIRE(said.size() == 1u);
    BOOST_TEST(said[0].find("64 requests") != std::string::npos, said[0]);
    BOOST_TEST(c.label.find("inexact") == std::string::npos, c.label);
}

// A template that glues the content's last word to its own text defeats every
// measure (the first word's, then usage's): the run is never called exact.
BOOST_AUTO_TEST_CASE(a_check_that_still_misses_is_never_called_exact) {
    fake_server server{.added = 6, .glue_end = true};
    const auto c = local_against(server);
    BOOST_TEST(c.check.exact < c.check.samples);
    BOOST_TEST(c.label.find("usage") == 0u, c.label);
    BOOST_TEST(c.label.find("inexact: ") != std::string::npos, c.label);
    BOOST_TEST(c.note.find("WARNING") != std::string::npos, c.note);
    BOOST_TEST(c.note.find(c.check.first_miss) != std::string::npos, c.note);
}

// --system-prompt: every probe carries it, its tokens count in what the server adds
// around each prompt, and the builder knows its share (what a session holds once).
BOOST_AUTO_TEST_CASE(a_system_prompt_counts_in_the_templates_share) {
    const std::string system = "answer briefly and name the part you mean";
    const int share = 3 + fake_count(system, 0);
    const http_call probe = usage_probe_call("/v1", "m", "hi", true, {}, system);
    const auto messages = json::parse(probe.body).at("messages").as_array();
    BOOST_TEST_REQUIRE(messages.size() == 2u);
    BOOST_TEST(messages[0].at("content").as_string() == system);
    BOOST_TEST(messages[1].at("role").as_string() == "user");
    for (const std::string choice : {"usage", "hf:unused"}) {
        BOOST_TEST_CONTEXT(choice) {
            fake_server server{.added = 7};
            auto r = request(choice);
            r.system_prompt = system;
            if (choice != "usage") r.local = std::make_shared<subword_tokenizer>();
            const http_post_fn post = [&](const http_call& c) { return server(c); };
            const auto c = calibrate_tokenizer(r, post, no_get);
            BOOST_TEST(c.check.exact == c.check.samples, c.note);
            BOOST_TEST(c.builder.system_tokens() == share);
            BOOST_TEST(c.builder.floor() == 7 + share + 1);  // the template, the system prompt, a one-token word
            BOOST_TEST(exact_of(c, server, 8, system) == 8);
        }
    }
    // Without usage (or under words) the system prompt is its own tokens, counted here.
    fake_server silent{.added = 7, .usage = false};
    auto r = request("hf:unused");
    r.system_prompt = system;
    r.local = std::make_shared<subword_tokenizer>();
    const http_post_fn post = [&](const http_call& c) { return silent(c); };
    BOOST_TEST(calibrate_tokenizer(r, post, no_get).builder.system_tokens() == fake_count(system, 0));
    r = request("words");
    r.system_prompt = system;
    const auto words = calibrate_tokenizer(r, post, no_get);
    BOOST_TEST(words.builder.system_tokens() == 8);
    std::string text;
    std::vector<std::int32_t> ids;
    BOOST_TEST(words.builder.append(text, ids, 20, 1) == 20);
    BOOST_TEST(count_text_tokens(text) == 12);  // 20 tokens, 8 of them the system prompt's words
}

BOOST_AUTO_TEST_SUITE_END()
