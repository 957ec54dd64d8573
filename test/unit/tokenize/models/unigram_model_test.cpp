#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/models/unigram_model.hpp"

#include <boost/json.hpp>

#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_unigram_model)

using namespace openloop::hf;

namespace {

std::unique_ptr<model> unigram(const char* json) {
    return make_unigram_model(boost::json::parse(json).as_object(), "tokenizer.json: model");
}

// Ids 0..7: <unk> ▁ a b ab abc c ▁ab
constexpr const char* small = R"({"type": "Unigram", "unk_id": 0, "vocab": [
    ["<unk>", 0], ["\u2581", -2], ["a", -3], ["b", -3], ["ab", -4], ["abc", -10], ["c", -5], ["\u2581ab", -5.5]]})";

std::vector<std::int32_t> encode(const model& m, std::string_view text) {
    std::vector<std::int32_t> ids;
    m.encode(text, ids);
    return ids;
}

std::string error_of(const char* json) {
    try {
        unigram(json);
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(viterbi_takes_the_most_probable_segmentation) {
    const auto m = unigram(small);
    using ids = std::vector<std::int32_t>;
    BOOST_TEST(encode(*m, "ab") == (ids{4}), boost::test_tools::per_element());  // -4 beats a + b = -6
    BOOST_TEST(encode(*m, "abc") == (ids{4, 6}), boost::test_tools::per_element());  // -9 beats abc's -10
    BOOST_TEST(encode(*m, "\u2581ab") == (ids{7}), boost::test_tools::per_element());  // -5.5 beats ▁ + ab = -6
    BOOST_TEST(encode(*m, "\u2581abc") == (ids{7, 6}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(an_equal_score_keeps_the_piece_that_starts_first) {
    // "ab" at -6 ties a + b: the path whose last piece starts earliest wins.
    const auto m = unigram(R"({"unk_id": 0, "vocab": [["<unk>", 0], ["a", -3], ["b", -3], ["ab", -6]]})");
    BOOST_TEST(encode(*m, "ab") == (std::vector<std::int32_t>{3}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(unknown_characters_fuse_into_one_unk) {
    const auto m = unigram(small);
    // The unknown score is the lowest score less 10; a run of unknown
    // characters is one <unk>, within a piece.
    BOOST_TEST(encode(*m, "xa") == (std::vector<std::int32_t>{0, 2}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "a\u00e9\u4e2dzb") == (std::vector<std::int32_t>{2, 0, 3}), boost::test_tools::per_element());
    BOOST_TEST(encode(*m, "").empty());
}

BOOST_AUTO_TEST_CASE(byte_fallback_spells_unknown_characters_in_bytes) {
    // 0 <unk>, 1 a, 2 <0xC3>, 3 <0xA9>, 4 <0x7A>: "é" is C3 A9.
    const auto m = unigram(R"({"unk_id": 0, "byte_fallback": true, "vocab": [["<unk>", 0], ["a", -1],
        ["<0xC3>", -5], ["<0xA9>", -5], ["<0x7A>", -5]]})");
    BOOST_TEST(encode(*m, "a\u00e9z") == (std::vector<std::int32_t>{1, 2, 3, 4}), boost::test_tools::per_element());
    // A byte without its piece makes the fused run <unk>.
    BOOST_TEST(encode(*m, "\u00e9q") == (std::vector<std::int32_t>{0}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(the_vocabulary_answers_both_ways) {
    const auto m = unigram(small);
    BOOST_TEST(m->vocab_size() == 8u);
    BOOST_TEST(m->token(5) == "abc");
    BOOST_TEST(m->token(8) == "");
    BOOST_TEST(*m->token_id("\u2581ab") == 7);
    BOOST_TEST(!m->token_id("zz"));
    BOOST_TEST(m->kind() == "Unigram");
}

BOOST_AUTO_TEST_CASE(without_unk_id_an_unknown_character_is_an_error) {
    const auto m = unigram(R"({"vocab": [["a", -1]]})");
    BOOST_TEST(encode(*m, "aa") == (std::vector<std::int32_t>{0, 0}), boost::test_tools::per_element());
    std::vector<std::int32_t> ids;
    BOOST_CHECK_THROW(m->encode("ax", ids), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named_by_their_json_path) {
    BOOST_TEST(error_of(R"({"vocab": [["a", -1], ["b"]]})") == "tokenizer.json: model.vocab[1] is not a [piece, score] pair");
    BOOST_TEST(error_of(R"({"vocab": []})") == "tokenizer.json: model.vocab is empty");
    BOOST_TEST(error_of(R"({"unk_id": 2})") == "tokenizer.json: model.vocab is missing");
    BOOST_TEST(error_of(R"({"unk_id": 2, "vocab": [["a", -1]]})") ==
               "tokenizer.json: model.unk_id 2 is not an index of model.vocab");
    BOOST_TEST(error_of(R"({"unk_id": 0, "byte_fallback": 1, "vocab": [["a", -1]]})") ==
               "tokenizer.json: model.byte_fallback is not true or false");
}

BOOST_AUTO_TEST_SUITE_END()
