#include <boost/test/unit_test.hpp>

#include "openloop/sim/sim_tokenizer.hpp"
#include "openloop/load/tokens.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_sim_tokenizer)

using namespace openloop;
namespace json = boost::json;

namespace {

constexpr auto words = sim_tokenizer_kind::words;
constexpr auto subword = sim_tokenizer_kind::subword;

std::vector<std::uint64_t> prompt_ids(sim_tokenizer_kind kind, const std::string& body, bool chat) {
    std::vector<std::uint64_t> ids;
    std::string err;
    BOOST_TEST_REQUIRE(request_prompt_ids(kind, json::parse(body).as_object(), chat, ids, err), err);
    return ids;
}

std::string prompt_error(sim_tokenizer_kind kind, const std::string& body, bool chat) {
    std::vector<std::uint64_t> ids;
    std::string err;
    BOOST_TEST(!request_prompt_ids(kind, json::parse(body).as_object(), chat, ids, err));
    return err;
}

std::vector<std::uint64_t> tokenize_ids(sim_tokenizer_kind kind, const std::string& body) {
    std::vector<std::uint64_t> ids;
    std::string err;
    BOOST_TEST_REQUIRE(tokenize_request_ids(kind, json::parse(body).as_object(), ids, err), err);
    return ids;
}

}  // namespace

BOOST_AUTO_TEST_CASE(names) {
    BOOST_TEST((sim_tokenizer_from_name("words")->kind == words));
    BOOST_TEST((sim_tokenizer_from_name("subword")->kind == subword));
    BOOST_TEST(!sim_tokenizer_from_name("bpe").has_value());
    BOOST_CHECK_THROW(sim_tokenizer_from_name("hf:/no/such/tokenizer.json"), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(subword_tokens_per_word_follow_the_length) {
    BOOST_TEST(subword_tokens("a") == 1);
    BOOST_TEST(subword_tokens("of") == 1);
    BOOST_TEST(subword_tokens("the") == 1);
    BOOST_TEST(subword_tokens("cache") == 2);
    BOOST_TEST(subword_tokens("model") == 2);
    BOOST_TEST(subword_tokens("server") == 2);
    BOOST_TEST(subword_tokens("outside") == 3);
    BOOST_TEST(subword_tokens("internationalization") == 3);
}

BOOST_AUTO_TEST_CASE(words_is_one_token_per_word_as_before) {
    const std::string text = "  the model\tserver\noutside  ";
    BOOST_TEST(sim_token_ids(words, text) == text_token_ids(text), boost::test_tools::per_element());
    BOOST_TEST(sim_token_ids(words, text).size() == 4u);
}

BOOST_AUTO_TEST_CASE(subword_ids_are_stable_small_and_prefix_preserving) {
    const auto ids = sim_token_ids(subword, "the model\toutside\n");
    BOOST_TEST(ids.size() == 6u);  // 1 + 2 + 3
    BOOST_TEST(ids == sim_token_ids(subword, "the   model outside"), boost::test_tools::per_element());
    for (auto id : ids) {
        BOOST_TEST(id >= sim_first_text_id);
        BOOST_TEST(id < sim_vocab_size);
        BOOST_TEST(sim_vocab_id(id) == id);
    }
    // The pieces of one word differ; a word's ids do not depend on its neighbours.
    BOOST_TEST(ids[3] != ids[4]);
    BOOST_TEST(ids[4] != ids[5]);
    const auto longer = sim_token_ids(subword, "the model outside river");
    BOOST_TEST_REQUIRE(longer.size() == 8u);
    BOOST_TEST(std::equal(ids.begin(), ids.end(), longer.begin()));
    BOOST_TEST(sim_token_ids(subword, "").empty());
    BOOST_TEST(sim_token_ids(subword, " \n\t ").empty());
}

BOOST_AUTO_TEST_CASE(a_synthetic_prompt_counts_more_under_subword) {
    std::string prompt;
    append_words(prompt, 200, 7);
    const auto w = sim_token_ids(words, prompt).size();
    const auto s = sim_token_ids(subword, prompt).size();
    BOOST_TEST(w == 200u);
    BOOST_TEST(s > w);
    BOOST_TEST(s <= 3 * w);
}

BOOST_AUTO_TEST_CASE(completion_prompts) {
    const std::string text = R"({"prompt":"the model outside"})";
    BOOST_TEST(prompt_ids(words, text, false).size() == 3u);
    // Under subword a text prompt gets BOS, unless add_special_tokens is false.
    const auto with_bos = prompt_ids(subword, text, false);
    BOOST_TEST_REQUIRE(with_bos.size() == 7u);
    BOOST_TEST(with_bos[0] < sim_first_text_id);
    const auto plain = prompt_ids(subword, R"({"prompt":"the model outside","add_special_tokens":false})", false);
    BOOST_TEST(std::equal(plain.begin(), plain.end(), with_bos.begin() + 1, with_bos.end()));
    BOOST_TEST(prompt_ids(words, R"({"prompt":"the model outside","add_special_tokens":true})", false).size() == 3u);
    // A list of one prompt is that prompt.
    BOOST_TEST(prompt_ids(subword, R"({"prompt":["the model outside"]})", false) == with_bos,
               boost::test_tools::per_element());
    // Token ids are used as given, under either tokenizer.
    for (auto kind : {words, subword}) {
        const auto ids = prompt_ids(kind, R"({"prompt":[5, 70000, 9]})", false);
        BOOST_TEST(ids == (std::vector<std::uint64_t>{5, 70000, 9}), boost::test_tools::per_element());
        BOOST_TEST(prompt_ids(kind, R"({"prompt":[[5, 6]]})", false).size() == 2u);
    }
    BOOST_TEST(prompt_error(subword, R"({"max_tokens":3})", false) == "prompt: field required");
    BOOST_TEST(prompt_error(subword, R"({"prompt":["a","b"]})", false).find("one prompt") != std::string::npos);
    BOOST_TEST(prompt_error(subword, R"({"prompt":[1,"b"]})", false).find("integers") != std::string::npos);
    BOOST_TEST(prompt_error(subword, R"({"prompt":7})", false).find("string or a list") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(chat_prompts_carry_the_template) {
    const std::string two = R"({"messages":[{"role":"system","content":"be brief"},
                                            {"role":"user","content":"the model outside"}]})";
    // words: only the content words.
    BOOST_TEST(prompt_ids(words, two, true).size() == 5u);
    // subword: BOS + 4 per message + 3 for the generation prompt + content (1+2, 1+2+3).
    const int content = 3 + 6;
    const auto ids = prompt_ids(subword, two, true);
    BOOST_TEST(ids.size() == std::size_t(sim_bos_tokens + 2 * sim_message_tokens + sim_generation_prompt_tokens + content));
    const std::string no_gen = R"({"add_generation_prompt":false,"messages":[{"role":"system","content":"be brief"},
                                   {"role":"user","content":"the model outside"}]})";
    BOOST_TEST(prompt_ids(subword, no_gen, true).size() == ids.size() - sim_generation_prompt_tokens);
    // add_special_tokens puts the tokenizer's BOS before the template's, as vLLM does.
    const std::string special = R"({"add_special_tokens":true,"messages":[{"role":"user","content":"hi"}]})";
    const auto doubled = prompt_ids(subword, special, true);
    BOOST_TEST_REQUIRE(doubled.size() == std::size_t(2 + sim_message_tokens + sim_generation_prompt_tokens + 1));
    BOOST_TEST(doubled[0] == doubled[1]);
    // Content parts count their text; null content counts nothing.
    const std::string parts = R"({"messages":[{"role":"user","content":[{"type":"text","text":"the model"},
                                  {"type":"image_url","image_url":{"url":"x"}},{"type":"text","text":"outside"}]},
                                  {"role":"assistant","content":null}]})";
    BOOST_TEST(prompt_ids(words, parts, true).size() == 3u);
    BOOST_TEST(prompt_ids(subword, parts, true).size() ==
               std::size_t(sim_bos_tokens + 2 * sim_message_tokens + sim_generation_prompt_tokens + 6));

    BOOST_TEST(prompt_error(subword, R"({"messages":[]})", true) == "messages: a non-empty list is required");
    BOOST_TEST(prompt_error(subword, R"({"prompt":"x"})", true) == "messages: a non-empty list is required");
    BOOST_TEST(prompt_error(words, R"({"messages":["hi"]})", true).find("object") != std::string::npos);
    BOOST_TEST(prompt_error(words, R"({"messages":[{"role":"user","content":3}]})", true).find("content") !=
               std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_conversation_extends_its_own_prefix) {
    // Turn 2 repeats turn 1: its ids start with turn 1's prompt, so the prefix cache hits.
    const auto turn1 = prompt_ids(subword, R"({"messages":[{"role":"user","content":"the model outside"}]})", true);
    const auto turn2 = prompt_ids(subword, R"({"messages":[{"role":"user","content":"the model outside"},
                                              {"role":"assistant","content":"river stone"},
                                              {"role":"user","content":"again"}]})", true);
    BOOST_TEST_REQUIRE(turn2.size() > turn1.size());
    BOOST_TEST(std::equal(turn1.begin(), turn1.end(), turn2.begin()));
    for (auto id : turn2) BOOST_TEST(id < sim_vocab_size);
}

BOOST_AUTO_TEST_CASE(tokenize_counts_as_the_request_would) {
    for (auto kind : {words, subword}) {
        BOOST_TEST(tokenize_ids(kind, R"({"model":"m","prompt":"the model outside"})") ==
                       prompt_ids(kind, R"({"prompt":"the model outside"})", false),
                   boost::test_tools::per_element());
        BOOST_TEST(tokenize_ids(kind, R"({"prompt":"the model","add_special_tokens":false})") ==
                       prompt_ids(kind, R"({"prompt":"the model","add_special_tokens":false})", false),
                   boost::test_tools::per_element());
        const std::string chat = R"({"messages":[{"role":"user","content":"the model outside"}]})";
        BOOST_TEST(tokenize_ids(kind, chat) == prompt_ids(kind, chat, true), boost::test_tools::per_element());
    }
    std::vector<std::uint64_t> ids;
    std::string err;
    BOOST_TEST(!tokenize_request_ids(subword, json::parse(R"({"prompt":[1,2]})").as_object(), ids, err));
    BOOST_TEST(err.find("prompt: a string") != std::string::npos);
    BOOST_TEST(!tokenize_request_ids(subword, json::parse(R"({"model":"m"})").as_object(), ids, err));
    BOOST_TEST(!tokenize_request_ids(subword, json::parse(R"({"messages":"hi"})").as_object(), ids, err));
}

BOOST_AUTO_TEST_CASE(tokenize_shows_words_ids_inside_the_vocabulary) {
    for (auto id : sim_token_ids(words, "the model outside river")) BOOST_TEST(sim_vocab_id(id) < sim_vocab_size);
}

// Tools (and a response_format's schema) come before the messages, so that two
// requests with the same tools share a prefix the prefix cache can find.
BOOST_AUTO_TEST_CASE(tools_come_first_and_are_shared) {
    const std::string tools =
        R"("tools":[{"type":"function","function":{"name":"search","description":"finds the words it is given"}}])";
    const auto one = prompt_ids(subword, R"({"messages":[{"role":"user","content":"first question"}],)" + tools + "}", true);
    const auto two = prompt_ids(subword, R"({"messages":[{"role":"user","content":"another one"}],)" + tools + "}", true);
    const auto bare = prompt_ids(subword, R"({"messages":[{"role":"user","content":"first question"}]})", true);
    BOOST_TEST(one.size() > bare.size());
    const auto shared = std::mismatch(one.begin(), one.end(), two.begin(), two.end()).first - one.begin();
    BOOST_TEST(shared >= static_cast<std::ptrdiff_t>(one.size() - bare.size()));
    const auto schema = prompt_ids(words, R"({"messages":[{"role":"user","content":"q"}],"response_format":)"
                                          R"({"type":"json_schema","json_schema":{"name":"answer","schema":{"type":"object"}}}})",
                                   true);
    BOOST_TEST(schema.size() == 2u);  // the schema's JSON is one word, then "q"
}

BOOST_AUTO_TEST_SUITE_END()
