#include <boost/test/unit_test.hpp>

#include "openloop/load/calibration.hpp"
#include "openloop/load/prompt_builder.hpp"
#include "openloop/load/tokenize_endpoint.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/workload.hpp"
#include "fake_subword.hpp"
#include "test_http.hpp"

#include <boost/json.hpp>

#include <map>

BOOST_AUTO_TEST_SUITE(unit_prompt_builder)

using namespace openloop;
namespace json = boost::json;

namespace {

token_counter fake_counter(int overhead, int* calls = nullptr) {
    return [=](std::string_view text) -> std::optional<int> {
        if (calls) ++*calls;
        return fake_count(text, overhead);
    };
}

}  // namespace

BOOST_AUTO_TEST_CASE(parses_every_choice_and_rejects_the_rest) {
    BOOST_TEST(int(parse_tokenizer("auto").type) == int(tokenizer_choice::kind::automatic));
    BOOST_TEST(int(parse_tokenizer("server").type) == int(tokenizer_choice::kind::server));
    BOOST_TEST(int(parse_tokenizer("ids").type) == int(tokenizer_choice::kind::ids));
    BOOST_TEST(int(parse_tokenizer("words").type) == int(tokenizer_choice::kind::words));
    const auto sp = parse_tokenizer("sentencepiece:/m/tokenizer.model");
    BOOST_TEST(int(sp.type) == int(tokenizer_choice::kind::sentencepiece));
    BOOST_TEST(sp.model_file == "/m/tokenizer.model");
    BOOST_TEST(int(parse_tokenizer("usage").type) == int(tokenizer_choice::kind::usage));
    const auto hf = parse_tokenizer("hf:/models/llama3");
    BOOST_TEST(int(hf.type) == int(tokenizer_choice::kind::hf));
    BOOST_TEST(hf.model_file == "/models/llama3");
    const auto tt = parse_tokenizer("tiktoken:o200k_base.tiktoken");
    BOOST_TEST(int(tt.type) == int(tokenizer_choice::kind::tiktoken));
    BOOST_TEST(tt.model_file == "o200k_base.tiktoken");
    BOOST_CHECK_THROW(parse_tokenizer("tiktoken"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_tokenizer("hf:"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_tokenizer("sentencepiece:"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(calibrated_prompts_have_exact_lengths) {
    for (const int overhead : {0, 1, 9}) {
        int calls = 0;
        const auto b = calibrate(fake_counter(overhead, &calls), "fake");
        BOOST_TEST(calls == 1 + 2 * int(vocab_size_words));
        for (int want = overhead + 1; want < 3000; want += 37) {
            std::string text;
            std::vector<std::int32_t> ids;
            const int built = b.append(text, ids, want, static_cast<std::uint64_t>(want) * 7919);
            BOOST_TEST(built == want);
            BOOST_TEST(fake_count(text, overhead) == want, "overhead " << overhead << " want " << want);
            BOOST_TEST(ids.empty());
        }
    }
}

BOOST_AUTO_TEST_CASE(shared_prefixes_stay_token_identical) {
    const auto b = calibrate(fake_counter(5), "fake");
    std::string a, c;
    std::vector<std::int32_t> ids;
    b.append(a, ids, 200, 42);
    b.append(c, ids, 200, 42);
    const std::string prefix = a;
    b.append(a, ids, 50, 1);
    b.append(c, ids, 50, 2);
    BOOST_TEST(a.substr(0, prefix.size()) == prefix);
    BOOST_TEST(c.substr(0, prefix.size()) == prefix);
    BOOST_TEST(a != c);
    BOOST_TEST(fake_count(a, 5) == 250);
    BOOST_TEST(fake_count(c, 5) == 250);
}

namespace {

// A chat template around the content, as a server's tokenizer lays it out:
// two ids before (BOS, a role header), three after (end of turn, the
// assistant's header); each word is fake_count's pieces, ids by word and piece.
constexpr int lead_ids = 2, trail_ids = 3;
std::vector<std::int64_t> templated_ids(std::string_view text) {
    std::vector<std::int64_t> ids = {1, 2};
    std::size_t i = 0;
    while (i < text.size()) {
        std::size_t j = text.find(' ', i);
        if (j == std::string_view::npos) j = text.size();
        const std::string_view word = text.substr(i, j - i);
        for (int k = 0; k < fake_count(word, 0); ++k)
            ids.push_back(1000 + static_cast<std::int64_t>(std::hash<std::string_view>{}(word) % 30000) * 4 + k);
        i = j + 1;
    }
    for (std::int64_t t : {7, 8, 9}) ids.push_back(t);
    return ids;
}

std::size_t common_prefix(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b) {
    std::size_t n = 0;
    while (n < a.size() && n < b.size() && a[n] == b[n]) ++n;
    return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_trailing_template_is_the_common_tail_of_two_prompts) {
    BOOST_TEST(trailing_tokens(templated_ids("word"), templated_ids("other")) == trail_ids);
    BOOST_TEST(trailing_tokens({}, templated_ids("other")) == 0);
    // A server numbering its tokens 0..n-1 lists no ids to compare.
    BOOST_TEST(trailing_tokens({0, 1, 2, 3}, {0, 1, 2, 3}) == 0);
    // The content is at least one token, whatever the lists share.
    BOOST_TEST(trailing_tokens({5, 9}, {6, 9, 9}) == 1);
}

// Segments start at the same position of the server's count in every prompt
// sharing them, so a prefix cache of whole blocks finds all of them: the
// trailing template tokens are taken from the last segment, not the first.
BOOST_AUTO_TEST_CASE(a_layout_puts_shared_segments_at_the_same_server_positions) {
    const auto counter = [](std::string_view t) -> std::optional<int> {
        return static_cast<int>(templated_ids(t).size());
    };
    const auto b = calibrate(counter, "fake").with_trailing(trail_ids);
    const auto build = [&](const prompt_builder& builder, std::uint64_t second, std::uint64_t rest, int total) {
        std::string text;
        std::vector<std::int32_t> ids;
        prompt_layout layout(builder, text, ids, total);
        layout.segment(64, 11);
        layout.segment(64, second);
        layout.rest(rest);
        const auto server = templated_ids(text);
        BOOST_TEST(static_cast<int>(server.size()) == total);
        return server;
    };
    const auto p1 = build(b, 12, 21, 300), p2 = build(b, 12, 22, 250), p3 = build(b, 13, 21, 300);
    BOOST_TEST(common_prefix(p1, p2) >= 128u);
    BOOST_TEST(common_prefix(p1, p3) >= 64u);
    BOOST_TEST(common_prefix(p1, p3) < 128u);
    // Charged to the first segment, the trailing tokens cut every shared run short.
    const auto untold = calibrate(counter, "fake");
    BOOST_TEST(common_prefix(build(untold, 12, 21, 300), build(untold, 12, 22, 250)) < 128u);
    // A prompt shorter than its segments ends inside them, with its template.
    const auto short_one = build(b, 12, 21, 100);
    BOOST_TEST(common_prefix(p1, short_one) >= 100u - trail_ids);
    // Shorter than the template: one word, as append writes it.
    std::string text;
    std::vector<std::int32_t> ids;
    prompt_layout(b, text, ids, 2).rest(5);
    BOOST_TEST(!text.empty());
}

BOOST_AUTO_TEST_CASE(shorter_than_the_template_is_one_word_and_says_so) {
    const auto b = calibrate(fake_counter(9), "fake");
    std::string text;
    std::vector<std::int32_t> ids;
    const int built = b.append(text, ids, 3, 1);
    BOOST_TEST(!text.empty());
    BOOST_TEST(built >= 10);  // what it really costs, not what was asked
}

BOOST_AUTO_TEST_CASE(words_mode_is_todays_prompts) {
    prompt_builder words;
    std::string a, b;
    std::vector<std::int32_t> ids;
    BOOST_TEST(words.append(a, ids, 40, 9) == 40);
    append_words(b, 40, 9);
    BOOST_TEST(a == b);
}

BOOST_AUTO_TEST_CASE(ids_stay_inside_the_ordinary_vocabulary) {
    const auto b = prompt_builder::with_ids(32000);
    std::string text;
    std::vector<std::int32_t> ids;
    BOOST_TEST(b.append(text, ids, 500, 3) == 500);
    BOOST_TEST(ids.size() == 500u);
    BOOST_TEST(text.empty());
    for (const auto id : ids) {
        BOOST_TEST(id >= 1000);
        BOOST_TEST(id < 31000);
    }
    BOOST_CHECK_THROW(prompt_builder::with_ids(10), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(verify_finds_a_tokenizer_that_drifted) {
    const auto b = calibrate(fake_counter(1), "fake");
    BOOST_TEST(verify(b, fake_counter(1), 8, 1).exact == 8);
    const auto drift = verify(b, fake_counter(2), 8, 1);
    BOOST_TEST(drift.exact == 0);
    BOOST_TEST(drift.first_miss.find("server counted") != std::string::npos);
}

// A template of 67 tokens (gpt-oss's Harmony) puts every prompt at 68 tokens
// or more: the check asks for none shorter, and the samples are all exact.
BOOST_AUTO_TEST_CASE(verify_asks_for_no_prompt_below_the_templates_floor) {
    const auto b = calibrate(fake_counter(67), "fake");
    BOOST_TEST(verify(b, fake_counter(67), 8, 1).exact == 8);
    BOOST_TEST(verify(b, fake_counter(67), 8, 1, 900).exact == 8);
}

BOOST_AUTO_TEST_CASE(costs_survive_the_cache_form) {
    const auto b = calibrate(fake_counter(4), "fake");
    const auto back = prompt_builder::from_json(json::parse(json::serialize(b.to_json())).as_object());
    BOOST_TEST(back.first() == b.first());
    BOOST_TEST(back.inner() == b.inner());
    BOOST_TEST(back.label() == "fake");
    BOOST_CHECK_THROW(prompt_builder::from_json(json::object{{"label", "x"}}), std::runtime_error);
    // A long template (or a system prompt) makes every first word cost more than a word may.
    const auto templated = calibrate(fake_counter(300), "long template");
    BOOST_TEST(prompt_builder::from_json(templated.to_json()).first() == templated.first());
}

BOOST_AUTO_TEST_CASE(absurd_counts_are_refused_with_the_word) {
    const token_counter broken = [](std::string_view) -> std::optional<int> {
        return 1;  // "the w" counted no longer than "the"
    };
    try {
        calibrate(broken, "broken");
        BOOST_FAIL("expected an exception");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find("implausible") != std::string::npos);
    }
}

// ---- the tokenize endpoint's dialects ----------------------------------------

BOOST_AUTO_TEST_CASE(root_sits_beside_the_openai_api) {
    BOOST_TEST(server_root("/v1") == "");
    BOOST_TEST(server_root("") == "");
    BOOST_TEST(server_root("/gateway/v1") == "/gateway");
    BOOST_TEST(server_root("/custom") == "/custom");
}

// --system-prompt: each dialect's chat call counts it as the server renders it, before the user's message.
BOOST_AUTO_TEST_CASE(each_dialect_counts_a_system_prompt_first) {
    for (const tokenize_dialect d : all_dialects) {
        const auto call = tokenize_call(d, "", "m", "hello", true, "be brief");
        const json::value body = json::parse(call.body);
        const json::array& messages = body.at("messages").as_array();
        BOOST_TEST_REQUIRE(messages.size() == 2u, dialect_name(d));
        BOOST_TEST(json::serialize(messages[0]) == R"({"role":"system","content":"be brief"})");
        BOOST_TEST(json::serialize(messages[1]) == R"({"role":"user","content":"hello"})");
    }
    const json::value plain = json::parse(tokenize_call(tokenize_dialect::vllm, "", "m", "hello", true).body);
    BOOST_TEST(plain.at("messages").as_array().size() == 1u);
}

BOOST_AUTO_TEST_CASE(each_dialect_reads_its_own_answer_only) {
    const auto vc = tokenize_call(tokenize_dialect::vllm, "", "m", "hello", true);
    BOOST_TEST(vc.path == "/tokenize");
    const auto body = json::parse(vc.body).as_object();
    BOOST_TEST(body.at("messages").as_array().size() == 1u);
    BOOST_TEST(body.at("add_generation_prompt").as_bool());
    const auto vllm = read_tokenize_answer(tokenize_dialect::vllm, "", vc, 200, R"({"count":7,"tokens":[1,2,3,4,5,6,7]})", true);
    BOOST_TEST(*vllm.count == 7);
    BOOST_TEST(vllm.ids == (std::vector<std::int64_t>{1, 2, 3, 4, 5, 6, 7}), boost::test_tools::per_element());
    // llama.cpp answers a vLLM body with an empty token list: not a count.
    BOOST_TEST(!read_tokenize_answer(tokenize_dialect::vllm, "", vc, 200, R"({"tokens":[]})", true).count);
    BOOST_TEST(!read_tokenize_answer(tokenize_dialect::vllm, "", vc, 404, R"({"count":7})", true).count);

    const auto lt = tokenize_call(tokenize_dialect::llamacpp, "", "m", "hello", false);
    BOOST_TEST(json::parse(lt.body).as_object().at("add_special").as_bool());
    BOOST_TEST(*read_tokenize_answer(tokenize_dialect::llamacpp, "", lt, 200, R"({"tokens":[1,15043]})", false).count == 2);

    // llama.cpp chat: the template first, then the templated prompt is tokenized.
    const auto la = tokenize_call(tokenize_dialect::llamacpp, "", "m", "hello", true);
    BOOST_TEST(la.path == "/apply-template");
    const auto next = read_tokenize_answer(tokenize_dialect::llamacpp, "", la, 200, R"({"prompt":"[INST] hello [/INST]"})", true);
    BOOST_TEST_REQUIRE(next.next.has_value());
    BOOST_TEST(next.next->path == "/tokenize");
    BOOST_TEST(json::parse(next.next->body).as_object().at("content").as_string() == "[INST] hello [/INST]");

    const auto tg = tokenize_call(tokenize_dialect::tgi, "", "m", "hello", false);
    const auto tgi = read_tokenize_answer(tokenize_dialect::tgi, "", tg, 200, R"([{"id":1},{"id":2},{"id":3}])", false);
    BOOST_TEST(*tgi.count == 3);
    BOOST_TEST(tgi.ids.size() == 3u);
    BOOST_TEST(!read_tokenize_answer(tokenize_dialect::tgi, "", tg, 200, "not json", false).count);
}

// ---- calibration against fake servers ---------------------------------------------

namespace {

// A llama.cpp-shaped server over the fake tokenizer: /apply-template wraps
// the message, /tokenize counts, and vLLM-shaped bodies get an empty list.
std::pair<int, std::string> fake_llamacpp(const http_call& c) {
    const auto body = json::parse(c.body).as_object();
    if (c.path == "/apply-template") {
        const auto& content = body.at("messages").as_array()[0].as_object().at("content").as_string();
        return {200, json::serialize(json::object{{"prompt", "[INST] " + std::string(content) + " [/INST]"}})};
    }
    if (c.path == "/tokenize") {
        const auto* content = body.if_contains("content");
        if (!content) return {200, R"({"tokens":[]})"};
        json::array tokens;
        const int n = fake_count(content->as_string(), 1);
        for (int i = 0; i < n; ++i) tokens.emplace_back(i);
        return {200, json::serialize(json::object{{"tokens", tokens}})};
    }
    return {404, "{}"};
}

}  // namespace

BOOST_AUTO_TEST_CASE(finds_llamacpp_and_caches_the_costs) {
    test_http::temp_dir dir;
    calibration_request r;
    r.choice = parse_tokenizer("server");
    r.chat = true;
    r.model = "tiny";
    r.cache_dir = dir.file("cache");
    int posts = 0;
    const http_post_fn post = [&](const http_call& c) {
        ++posts;
        return fake_llamacpp(c);
    };
    const http_get_fn get = [](const std::string&) -> std::string { throw std::runtime_error("no GET expected"); };
    const auto first = calibrate_tokenizer(r, post, get);
    BOOST_TEST(first.label == "server (llama.cpp chat template)");
    BOOST_TEST(!first.from_cache);
    BOOST_TEST(first.check.exact == first.check.samples);
    const int cold = posts;

    posts = 0;
    const auto second = calibrate_tokenizer(r, post, get);
    BOOST_TEST(second.from_cache);
    BOOST_TEST(second.check.exact == second.check.samples);
    BOOST_TEST(posts < cold / 4);  // detection and the sample check, not the 129 word counts

    // A chat prompt's count includes the template: "[INST]" and "[/INST]" cost 2 + 3 here.
    std::string text;
    std::vector<std::int32_t> ids;
    second.builder.append(text, ids, 300, 5);
    BOOST_TEST(fake_count("[INST] " + text + " [/INST]", 1) == 300);
}

// vLLM's /tokenize lists the ids: the calibration measures the template's
// trailing tokens from them and caches them with the costs.
BOOST_AUTO_TEST_CASE(calibration_measures_the_trailing_template_tokens) {
    test_http::temp_dir dir;
    calibration_request r;
    r.choice = parse_tokenizer("server");
    r.model = "m";
    r.cache_dir = dir.file("cache");
    const http_post_fn post = [](const http_call& c) {
        const auto body = json::parse(c.body).as_object();
        if (c.path != "/tokenize" || !body.contains("messages")) return std::pair<int, std::string>{404, "{}"};
        const auto ids = templated_ids(body.at("messages").as_array()[0].as_object().at("content").as_string());
        return std::pair<int, std::string>{
            200, json::serialize(json::object{{"count", ids.size()}, {"tokens", json::value_from(ids)}})};
    };
    const http_get_fn get = [](const std::string&) -> std::string { throw std::runtime_error("no GET expected"); };
    const auto first = calibrate_tokenizer(r, post, get);
    BOOST_TEST(!first.from_cache);
    BOOST_TEST(first.builder.trailing() == trail_ids);
    BOOST_TEST(first.check.exact == first.check.samples);
    const auto second = calibrate_tokenizer(r, post, get);
    BOOST_TEST(second.from_cache);
    BOOST_TEST(second.builder.trailing() == trail_ids);
    // A cache written before the trailing tokens were measured is recalibrated.
    json::object old = first.builder.to_json();
    old.erase("trailing");
    BOOST_CHECK_THROW(prompt_builder::from_json(old), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(no_tokenize_endpoint_is_an_error_only_when_asked_for) {
    calibration_request r;
    r.chat = false;
    const http_post_fn none = [](const http_call&) { return std::pair<int, std::string>{404, "{}"}; };
    const http_get_fn get = [](const std::string&) { return std::string(R"({"data":[{"id":"m","meta":{"n_vocab":32000}}]})"); };
    r.choice = parse_tokenizer("auto");
    const auto fallback = calibrate_tokenizer(r, none, get);
    BOOST_TEST(int(fallback.builder.type()) == int(prompt_builder::kind::words));
    BOOST_TEST(!fallback.note.empty());
    r.choice = parse_tokenizer("server");
    BOOST_CHECK_THROW(calibrate_tokenizer(r, none, get), std::runtime_error);

    r.choice = parse_tokenizer("ids");
    const auto ids = calibrate_tokenizer(r, none, get);
    BOOST_TEST(int(ids.builder.type()) == int(prompt_builder::kind::ids));
    BOOST_TEST(ids.label == "ids (vocabulary 32000)");
    r.chat = true;
    BOOST_CHECK_THROW(calibrate_tokenizer(r, none, get), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
