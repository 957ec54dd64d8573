// The stages of a tokenizer.json one by one, made from their JSON through the
// factories: normalizers, pre-tokenizers (every Split behavior), decoders.

#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/pre_tokenizers/common_pre_tokenizers.hpp"
#include "openloop/tokenize/stages.hpp"

#include <boost/json.hpp>

BOOST_AUTO_TEST_SUITE(unit_hf_stages)

using namespace openloop;
using strings = std::vector<std::string>;

namespace {

std::string normalize(const std::string& json, std::string text) {
    hf::make_normalizer(boost::json::parse(json), "t.json: normalizer")->apply(text, hf::normalized_limit(text.size()));
    return text;
}

strings pre_tokenize(const std::string& json, const std::string& text, bool at_start = true) {
    std::vector<hf::piece> pieces{{text, at_start}};
    hf::make_pre_tokenizer(boost::json::parse(json), "t.json: pre_tokenizer")->split(pieces);
    strings out;
    for (const auto& p : pieces) out.push_back(p.text);
    return out;
}

std::string decode(const std::string& json, strings tokens) {
    hf::make_decoder(boost::json::parse(json), "t.json: decoder")->apply(tokens);
    std::string out;
    for (const auto& t : tokens) out += t;
    return out;
}

strings split(hf::split_behavior b, bool invert) {
    // "a-b--c": the matches of "-" at 1, 3 and 4.
    const hf::piece in{"a-b--c", true};
    std::vector<hf::piece> out;
    hf::split_by_matches(in, {{1, 2}, {3, 4}, {4, 5}}, b, invert, out);
    strings texts;
    for (const auto& p : out) texts.push_back(p.text);
    return texts;
}

}  // namespace

BOOST_AUTO_TEST_CASE(unicode_normalizers) {
    BOOST_TEST(normalize(R"({"type": "NFC"})", "e\u0301") == "\u00e9");
    BOOST_TEST(normalize(R"({"type": "NFD"})", "\u00e9") == "e\u0301");
    BOOST_TEST(normalize(R"({"type": "NFKC"})", "\ufb01 \u2460") == "fi 1");
    BOOST_TEST(normalize(R"({"type": "NFKD"})", "\ufb01\u00e9") == "fie\u0301");
}

BOOST_AUTO_TEST_CASE(text_normalizers) {
    BOOST_TEST(normalize(R"({"type": "Lowercase"})", "ÀB ΟΔΟΣ") == "àb οδος");
    BOOST_TEST(normalize(R"({"type": "Strip", "strip_left": true, "strip_right": true})", "\u3000 a b\n ") == "a b");
    BOOST_TEST(normalize(R"({"type": "Strip", "strip_left": false, "strip_right": true})", " a ") == " a");
    BOOST_TEST(normalize(R"({"type": "Replace", "pattern": {"Regex": "\\s+"}, "content": "_"})", "a  b\t\nc") == "a_b_c");
    BOOST_TEST(normalize(R"({"type": "Replace", "pattern": {"String": "."}, "content": "!"})", "a.b") == "a!b");
    BOOST_TEST(normalize(R"({"type": "StripAccents"})", "e\u0301a") == "ea");
    BOOST_TEST(normalize(R"({"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": "▁"}, {"type": "Lowercase"}]})",
                         "AB") == "▁ab");
}

BOOST_AUTO_TEST_CASE(split_behaviors) {
    using b = hf::split_behavior;
    BOOST_TEST(split(b::removed, false) == strings({"a", "b", "c"}), boost::test_tools::per_element());
    BOOST_TEST(split(b::isolated, false) == strings({"a", "-", "b", "-", "-", "c"}), boost::test_tools::per_element());
    BOOST_TEST(split(b::merged_with_previous, false) == strings({"a-", "b-", "-", "c"}), boost::test_tools::per_element());
    BOOST_TEST(split(b::merged_with_next, false) == strings({"a", "-b", "-", "-c"}), boost::test_tools::per_element());
    BOOST_TEST(split(b::contiguous, false) == strings({"a", "-", "b", "--", "c"}), boost::test_tools::per_element());
    // invert: the pattern's matches are what is kept.
    BOOST_TEST(split(b::removed, true) == strings({"-", "-", "-"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(split_pre_tokenizer_with_a_regex) {
    // GPT-4o's shape: invert with Removed keeps the regex's matches.
    const std::string json = R"({"type": "Split", "pattern": {"Regex": "\\p{L}+|\\p{N}{1,3}"}, "behavior": "Removed", "invert": true})";
    BOOST_TEST(pre_tokenize(json, "ab 12345!") == strings({"ab", "123", "45"}), boost::test_tools::per_element());
    const std::string isolated = R"({"type": "Split", "pattern": {"String": " "}, "behavior": "Isolated"})";
    BOOST_TEST(pre_tokenize(isolated, "a b") == strings({"a", " ", "b"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(byte_level_pre_tokenizer) {
    BOOST_TEST(pre_tokenize(R"({"type": "ByteLevel", "add_prefix_space": true})", "it's  ok\n") ==
                   strings({"Ġit", "'s", "Ġ", "Ġok", "Ċ"}),
               boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(R"({"type": "ByteLevel", "use_regex": false})", "a b") == strings({"aĠb"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(metaspace_prepend_schemes) {
    const std::string always = R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"})";
    BOOST_TEST(pre_tokenize(always, "hello world") == strings({"▁hello", "▁world"}), boost::test_tools::per_element());
    const std::string first = R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "first", "split": false})";
    BOOST_TEST(pre_tokenize(first, "a b", true) == strings({"▁a▁b"}), boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(first, "a b", false) == strings({"a▁b"}), boost::test_tools::per_element());
    const std::string never = R"({"type": "Metaspace", "replacement": "▁", "add_prefix_space": false})";
    BOOST_TEST(pre_tokenize(never, "a b") == strings({"a", "▁b"}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(rule_pre_tokenizers) {
    BOOST_TEST(pre_tokenize(R"({"type": "Digits", "individual_digits": true})", "ab12c") == strings({"ab", "1", "2", "c"}),
               boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(R"({"type": "Digits", "individual_digits": false})", "ab12c") == strings({"ab", "12", "c"}),
               boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(R"({"type": "Whitespace"})", "hi, there!") == strings({"hi", ",", "there", "!"}),
               boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(R"({"type": "WhitespaceSplit"})", " a\tb  c ") == strings({"a", "b", "c"}),
               boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(R"({"type": "Punctuation"})", "a,b!?") == strings({"a", ",", "b", "!", "?"}),
               boost::test_tools::per_element());
    BOOST_TEST(pre_tokenize(R"({"type": "Sequence", "pretokenizers": [{"type": "WhitespaceSplit"}, {"type": "Digits"}]})",
                            "a1 b") == strings({"a", "1", "b"}),
               boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(decoders) {
    BOOST_TEST(decode(R"({"type": "ByteLevel"})", {"ĠhÃ©", "llo", "<|x|>"}) == " héllo<|x|>");
    // A byte-level run cut inside a character: U+FFFD for its bytes.
    BOOST_TEST(decode(R"({"type": "ByteLevel"})", {"Ã"}) == "\uFFFD");
    BOOST_TEST(decode(R"({"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always"})", {"▁a", "▁b"}) == "a b");
    BOOST_TEST(decode(R"({"type": "ByteFallback"})", {"<0xE2>", "<0x82>", "<0xAC>", "x", "<0xFF>"}) == "€x\uFFFD");
    BOOST_TEST(decode(R"({"type": "WordPiece", "prefix": "##", "cleanup": true})", {"un", "##believ", "##able", "!"}) ==
               "unbelievable!");
    BOOST_TEST(decode(R"({"type": "Strip", "content": "x", "start": 2, "stop": 1})", {"xxxaxx"}) == "xax");
    BOOST_TEST(decode(R"({"type": "Sequence", "decoders": [{"type": "Replace", "pattern": {"String": "_"}, "content": " "},
                         {"type": "Fuse"}]})",
                      {"_a", "_b"}) == " a b");
}

BOOST_AUTO_TEST_CASE(bad_stage_fields_are_named) {
    try {
        pre_tokenize(R"({"type": "Split", "pattern": {"Regex": "("}})", "x");
        BOOST_FAIL("a bad regex was accepted");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).starts_with("t.json: pre_tokenizer.pattern.Regex regex /(/ does not compile"), e.what());
    }
    try {
        pre_tokenize(R"({"type": "Split", "pattern": {"String": "a"}, "behavior": "Sideways"})", "x");
        BOOST_FAIL("a bad behavior was accepted");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()) == "t.json: pre_tokenizer.behavior \"Sideways\" is not supported");
    }
    BOOST_CHECK_THROW(normalize(R"({"type": "Strip", "strip_left": 1})", "x"), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
