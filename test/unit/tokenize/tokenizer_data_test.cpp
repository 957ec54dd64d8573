#include <boost/test/unit_test.hpp>

// The committed tokenizers of test/data/tokenizers/ through this tree's
// stages, against the ids @lenml/tokenizers 3.7.2 (transformers.js) gives for
// the same text without special tokens. The Unigram file's NFKC leaves these
// texts as they are, and its Metaspace pre-tokenizer is written out here.

#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/tokenize/models/unigram_model.hpp"
#include "openloop/tokenize/models/wordpiece_model.hpp"
#include "openloop/tokenize/normalizers/bert_normalizer.hpp"
#include "openloop/tokenize/pre_tokenizers/bert_pre_tokenizer.hpp"
#include "test_paths.hpp"

#include <boost/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_tokenizer_data)

using namespace openloop::hf;

namespace {

struct reference_case {
    const char* text;
    std::vector<std::int32_t> ids;
};

boost::json::object tokenizer_json(const std::string& dir) {
    std::ifstream in(std::string(openloop_test::source_dir) + "/test/data/tokenizers/" + dir + "/tokenizer.json");
    BOOST_REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    return boost::json::parse(text.str()).as_object();
}

// Metaspace (replacement "▁", prepend_scheme "always", split): spaces become
// ▁, one leads, and each word starts at a ▁.
std::vector<std::string> metaspace_words(std::string text) {
    const std::string mark = "\u2581";
    std::string replaced;
    for (char c : text) replaced += c == ' ' ? mark : std::string(1, c);
    if (!replaced.starts_with(mark)) replaced.insert(0, mark);
    std::vector<std::string> words;
    for (std::size_t at = 0; at < replaced.size();) {
        const std::size_t next = std::min(replaced.find(mark, at + 1), replaced.size());
        words.push_back(replaced.substr(at, next - at));
        at = next;
    }
    return words;
}

const std::vector<reference_case> unigram_cases = {
    {"Hello world",
     {3, 496, 364, 470, 481, 282}},
    {"The university of the united states was known for its national music school.",
     {222, 249, 135, 220, 248, 208, 309, 259, 95, 48, 89, 128, 126, 188, 545}},
    {"Running, playing and reading: the happiest players!",
     {3, 506, 337, 480, 305, 546, 167, 15, 175, 550, 220, 3, 354, 471, 482, 482, 476, 315, 165, 309, 547}},
    {"Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00fcber Stra\u00dfe cr\u00e8me d\u00e9j\u00e0 vu",
     {3, 491, 387, 525, 289, 290, 291, 3, 507, 375, 386, 471, 539, 364, 293, 294, 295}},
    {"\u4e2d\u6587\u5b57 \u65e5\u672c\u8a9e \u6211\u662f\u5927\u5b66\u751f \u4f60\u597d\u7684",
     {3, 631, 591, 3, 632, 3, 599, 603, 596, 597, 598, 3, 600, 601, 602}},
    {"\u4e2d\u56fd\u4eba\u5728\u65e5\u672c\u5b66\u4e60\u8bed\u8a00",
     {623, 2, 595, 606, 592, 593, 597, 2}},
    {"\u65e5\u672c\u8a9e\u306e\u6587\u5b57\u306f\u3001\u4eba\u306b\u597d\u307e\u308c\u3066",
     {3, 632, 608, 590, 591, 610, 586, 595, 609, 601, 2, 615}},
    {"\u03a9mega \u2603 snowman \U0001f642 emoji and Zebra",
     {3, 2, 412, 475, 471, 3, 2, 310, 480, 481, 486, 440, 3, 2, 3, 364, 469, 481, 477, 476, 15, 3, 514, 364, 472,
     386, 471}},
    {"supercalifragilisticexpialidocious antidisestablishmentarianism",
     {310, 255, 313, 473, 325, 476, 355, 471, 475, 476, 479, 85, 410, 473, 364, 487, 482, 476, 325, 476, 431,
     481, 424, 449, 309, 13, 410, 342, 315, 445, 479, 85, 354, 329, 362, 476, 471, 480, 85, 469}},
    {"He didn't say; I'm sure... they've gone & we're here!",
     {3, 496, 364, 3, 431, 476, 431, 480, 551, 375, 310, 471, 393, 549, 3, 497, 551, 469, 310, 484, 339, 577,
     227, 551, 485, 364, 3, 475, 142, 364, 3, 568, 361, 551, 339, 61, 364, 547}},
    {"\u00c9COLE NORMALE SUP\u00c9RIEURE \u039f\u0394\u039f\u03a3",
     {3, 542, 491, 503, 500, 493, 3, 502, 503, 506, 501, 489, 500, 493, 3, 507, 509, 504, 542, 506, 497, 493,
     509, 506, 493, 3, 2}},
};
const std::vector<reference_case> wordpiece_cases = {
    {"Hello world",
     {63, 58, 72, 72, 78, 272}},
    {"Running, playing and reading: the happiest players!",
     {220, 6, 211, 127, 215, 10, 238, 63, 50, 80, 80, 66, 293, 210, 86, 7}},
    {"Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00fcber Stra\u00dfe cr\u00e8me d\u00e9j\u00e0 vu",
     {276, 277, 278, 279, 85, 88, 84, 50, 340, 58, 281, 282, 91, 90}},
    {"ni\u00f1o se\u00f1or fa\u00e7ade co\u00f6perate jalape\u00f1o",
     {283, 284, 285, 53, 78, 78, 80, 292, 50, 88, 58, 67, 298, 50, 80, 58, 76, 78}},
    {"\u4e2d\u6587\u5b57 \u65e5\u672c\u8a9e \u6211\u662f\u5927\u5b66\u751f \u4f60\u597d\u7684",
     {316, 317, 318, 319, 320, 321, 326, 330, 323, 324, 325, 327, 328, 329}},
    {"\u4e2d\u56fd\u4eba\u5728\u65e5\u672c\u5b66\u4e60\u8bed\u8a00",
     {316, 1, 322, 333, 319, 320, 324, 1, 1, 1}},
    {"\u65e5\u672c\u8a9e\u306e\u6587\u5b57\u306f\u3001\u4eba\u306b\u597d\u307e\u308c\u3066",
     {319, 320, 321, 335, 317, 318, 337, 46, 322, 336, 328, 1}},
    {"\u03a9mega \u2603 snowman \U0001f642 emoji and Zebra",
     {1, 1, 85, 76, 78, 94, 74, 50, 76, 1, 57, 74, 78, 68, 66, 127, 99, 58, 52, 84, 50}},
    {"supercalifragilisticexpialidocious antidisestablishmentarianism",
     {85, 90, 80, 292, 54, 298, 66, 60, 84, 50, 62, 66, 72, 66, 312, 66, 54, 58, 96, 80, 66, 298, 66, 56, 78, 54,
     66, 78, 90, 86, 126, 88, 66, 307, 293, 50, 52, 72, 66, 86, 64, 300, 50, 84, 66, 50, 76, 66, 86, 74}},
    {"He didn't say; I'm sure... they've gone & we're here!",
     {63, 58, 55, 66, 56, 76, 11, 87, 85, 50, 98, 9, 65, 11, 73, 85, 90, 305, 5, 5, 5, 243, 11, 91, 58, 61, 78,
     76, 58, 28, 93, 58, 11, 83, 58, 156, 58, 7}},
    {"\u00c9COLE NORMALE SUP\u00c9RIEURE \u039f\u0394\u039f\u03a3",
     {57, 54, 78, 72, 58, 75, 78, 84, 74, 298, 58, 85, 90, 80, 292, 66, 58, 90, 305, 1}},
    {"1234567890 3.14159 2024-12-04",
     {103, 106, 108, 110, 112, 114, 116, 118, 120, 102, 107, 5, 103, 110, 104, 112, 120, 105, 102, 106, 110, 19,
     103, 106, 19, 101, 110}},
};

}  // namespace

BOOST_AUTO_TEST_CASE(unigram_metaspace_gives_the_reference_ids) {
    const auto json = tokenizer_json("unigram-metaspace");
    const auto m = make_unigram_model(json.at("model").as_object(), "tokenizer.json: model");
    BOOST_TEST(m->vocab_size() == 633u);
    for (const auto& c : unigram_cases) {
        std::vector<std::int32_t> ids;
        for (const std::string& word : metaspace_words(c.text)) m->encode(word, ids);
        BOOST_TEST_CONTEXT(c.text) { BOOST_TEST(ids == c.ids, boost::test_tools::per_element()); }
    }
}

BOOST_AUTO_TEST_CASE(wordpiece_bert_gives_the_reference_ids) {
    const auto json = tokenizer_json("wordpiece-bert");
    const auto n = make_bert_normalizer(json.at("normalizer").as_object(), "tokenizer.json: normalizer");
    const auto p = make_bert_pre_tokenizer(json.at("pre_tokenizer").as_object(), "tokenizer.json: pre_tokenizer");
    const auto m = make_wordpiece_model(json.at("model").as_object(), "tokenizer.json: model");
    BOOST_TEST(m->vocab_size() == 342u);
    for (const auto& c : wordpiece_cases) {
        std::string text = c.text;
        n->apply(text, normalized_limit(text.size()));
        std::vector<piece> pieces{{text, true}};
        p->split(pieces);
        std::vector<std::int32_t> ids;
        for (const piece& w : pieces) m->encode(w.text, ids);
        BOOST_TEST_CONTEXT(c.text) { BOOST_TEST(ids == c.ids, boost::test_tools::per_element()); }
    }
}

BOOST_AUTO_TEST_CASE(load_hf_tokenizer_reads_both_folders_whole) {
    // The whole pipeline: added tokens, NFKC, Metaspace, the post-processor's
    // </s> or [CLS] ... [SEP], and decoding.
    const std::string dir = std::string(openloop_test::source_dir) + "/test/data/tokenizers/";
    const auto unigram = openloop::load_hf_tokenizer(dir + "unigram-metaspace");
    BOOST_TEST(unigram->vocab_size() == 633u);
    using ids = std::vector<std::int32_t>;
    BOOST_TEST(unigram->encode("  leading and trailing spaces  ", true) ==
                   (ids{3, 3, 463, 471, 431, 305, 15, 3, 375, 386, 471, 476, 479, 305, 310, 482, 471, 473, 311, 3, 3, 1}),
               boost::test_tools::per_element());
    BOOST_TEST(unigram->encode("multiple    spaces\ttab</s>", false) ==
                   (ids{3, 469, 484, 479, 410, 482, 463, 3, 3, 3, 310, 482, 471, 473, 311, 2, 375, 445, 1}),
               boost::test_tools::per_element());
    const ids unknown{623, 2, 595, 606, 592, 593, 597, 2};
    BOOST_TEST(unigram->decode(unknown, false) == "\u4e2d<unk>\u4eba\u5728\u65e5\u672c\u5b66<unk>");

    const auto bert = openloop::load_hf_tokenizer(dir + "wordpiece-bert");
    BOOST_TEST(bert->encode("Caf\u00e9 na\u00efve r\u00e9sum\u00e9 \u00fcber Stra\u00dfe cr\u00e8me d\u00e9j\u00e0 vu", true) ==
                   (ids{2, 276, 277, 278, 279, 85, 88, 84, 50, 340, 58, 281, 282, 91, 90, 3}),
               boost::test_tools::per_element());
    BOOST_TEST(bert->encode("multiple    spaces\ttab", true) ==
                   (ids{2, 73, 90, 72, 88, 66, 80, 72, 58, 85, 80, 50, 54, 291, 87, 50, 52, 3}),
               boost::test_tools::per_element());
    const ids words{2, 73, 90, 72, 88, 66, 80, 72, 58, 85, 80, 50, 54, 291, 87, 50, 52, 3};
    BOOST_TEST(bert->decode(words, true) == "multiple spaces tab");
}

BOOST_AUTO_TEST_SUITE_END()
