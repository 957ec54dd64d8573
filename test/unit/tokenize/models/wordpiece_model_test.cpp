#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/models/wordpiece_model.hpp"

#include <boost/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_wordpiece_model)

using namespace openloop::hf;

namespace {

boost::json::object object_of(const char* json) { return boost::json::parse(json).as_object(); }

constexpr const char* vocab = R"({"type": "WordPiece", "unk_token": "[UNK]", "max_input_chars_per_word": 10,
    "vocab": {"[UNK]": 0, "[CLS]": 1, "un": 2, "##aff": 3, "##able": 4, "una": 5, "##ff": 6, "##a": 7,
              "\u00e9t\u00e9": 8, "##\u00e9": 9, "\u4e2d": 10, "aaaa": 11, "##aaaa": 12}})";

std::vector<std::int32_t> encode(const model& m, std::string_view word) {
    std::vector<std::int32_t> ids;
    m.encode(word, ids);
    return ids;
}

std::string error_of(const char* json) {
    try {
        make_wordpiece_model(object_of(json), "tokenizer.json: model");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(longest_match_first) {
    const auto m = make_wordpiece_model(object_of(vocab), "tokenizer.json: model");
    using ids = std::vector<std::int32_t>;
    // "una" is longer than "un", so "unaffable" is una ##ff ##able, not un ##aff ##able.
    BOOST_TEST(encode(*m, "unaffable") == (ids{5, 6, 4}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "unaff") == (ids{5, 6}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "\u00e9t\u00e9\u00e9") == (ids{8, 9}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "\u4e2d") == (ids{10}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_word_with_no_match_somewhere_is_one_unk) {
    const auto m = make_wordpiece_model(object_of(vocab), "tokenizer.json: model");
    using ids = std::vector<std::int32_t>;
    BOOST_TEST(encode(*m, "unx") == (ids{0}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "x") == (ids{0}), boost::test_tools::per_element());
    // Ten characters are cut; eleven are unknown whatever they are.
    BOOST_TEST(encode(*m, "aaaaaaaaaa") == (ids{11, 12, 7, 7}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "aaaaaaaaaaa") == (ids{0}), boost::test_tools::per_element());
    // Ids appended after those already there.
    std::vector<std::int32_t> out{1};
    m->encode("unx", out);
    m->encode("una", out);
    BOOST_TEST(out == (ids{1, 0, 5}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_vocabulary_answers_both_ways) {
    const auto m = make_wordpiece_model(object_of(vocab), "tokenizer.json: model");
    BOOST_TEST(m->vocab_size() == 13u);
    BOOST_TEST(m->token(3) == "##aff");
    BOOST_TEST(*m->token_id("[CLS]") == 1);
    BOOST_TEST(!m->token_id("##x"));
    BOOST_TEST(m->kind() == "WordPiece");
}

BOOST_AUTO_TEST_CASE(a_missing_unk_token_is_an_error_when_needed) {
    const auto m = make_wordpiece_model(object_of(R"({"vocab": {"a": 0}})"), "tokenizer.json: model");
    BOOST_TEST(encode(*m, "a") == (std::vector<std::int32_t>{0}), boost::test_tools::per_element());
    std::vector<std::int32_t> ids;
    BOOST_CHECK_THROW(m->encode("b", ids), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named_by_their_json_path) {
    BOOST_TEST(error_of(R"({"unk_token": "[UNK]"})") == "tokenizer.json: model.vocab is missing");
    BOOST_TEST(error_of(R"({"vocab": [["a", 1]]})") == "tokenizer.json: model.vocab is not a JSON object");
    BOOST_TEST(error_of(R"({"vocab": {"a": "1"}})") == "tokenizer.json: model.vocab[\"a\"] is not an integer id");
    BOOST_TEST(error_of(R"({"vocab": {"a": -1}})") == "tokenizer.json: model.vocab[\"a\"] -1 is out of range");
    BOOST_TEST(error_of(R"({"vocab": {"a": 0}, "max_input_chars_per_word": "x"})") ==
               "tokenizer.json: model.max_input_chars_per_word is not an integer");
}

BOOST_AUTO_TEST_SUITE_END()
