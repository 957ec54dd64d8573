#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/normalizers/bert_normalizer.hpp"

#include <boost/json.hpp>

#include <stdexcept>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_bert_normalizer)

using namespace openloop::hf;
using namespace std::string_literals;

namespace {

std::string bert(const char* json, std::string text) {
    make_bert_normalizer(boost::json::parse(json).as_object(), "tokenizer.json: normalizer")
        ->apply(text, normalized_limit(text.size()));
    return text;
}

constexpr const char* uncased = R"({"type": "BertNormalizer", "clean_text": true, "handle_chinese_chars": true,
    "strip_accents": null, "lowercase": true})";

}  // namespace

BOOST_AUTO_TEST_CASE(clean_text_drops_controls_and_spaces_whitespace) {
    const char* clean = R"({"clean_text": true, "handle_chinese_chars": false, "lowercase": false})";
    // NUL, U+FFFD, a C0 control, a zero-width joiner (Cf) and a private-use
    // character go; tab, newline, no-break and ideographic spaces become ' '.
    BOOST_TEST(bert(clean, "a\0b\xEF\xBF\xBD" "c\x07" "d\u200De\uE000f"s) == "abcdef");
    BOOST_TEST(bert(clean, "a\tb\nc\u00A0d\u3000e\r") == "a b c d e ");
}

BOOST_AUTO_TEST_CASE(ideographs_get_spaces_kana_and_hangul_do_not) {
    const char* chinese = R"({"clean_text": false, "handle_chinese_chars": true, "lowercase": false})";
    BOOST_TEST(bert(chinese, "\u4e2d\u6587ab\u3042\ud55c\U00020000") ==
               " \u4e2d  \u6587 ab\u3042\ud55c \U00020000 ");
    // Outside the Basic Multilingual Plane too (the reference, reading UTF-16
    // code units, misses those); U+2B820..2B91F are left as HF leaves them.
    BOOST_TEST(bert(chinese, "\U0002B8FFx\U0002B920") == "\U0002B8FFx \U0002B920 ");
}

BOOST_AUTO_TEST_CASE(lowercase_strips_accents_unless_told_not_to) {
    BOOST_TEST(bert(uncased, "H\u00c9LLO Cr\u00e8me \u00c5ngstr\u00f6m") == "hello creme angstrom");
    // Each character on its own: a final capital sigma becomes σ, not ς;
    // İ is i with a dot above, whose dot the accent stripping takes.
    BOOST_TEST(bert(uncased, "\u039f\u0394\u039f\u03a3") == "\u03bf\u03b4\u03bf\u03c3");
    BOOST_TEST(bert(uncased, "\u0130") == "i");
    const char* keep = R"({"lowercase": true, "strip_accents": false})";
    BOOST_TEST(bert(keep, "Cr\u00c8me") == "cr\u00e8me");
    const char* cased = R"({"lowercase": false, "strip_accents": true})";
    BOOST_TEST(bert(cased, "Cr\u00e8me \u1e9e") == "Creme \u1e9e");
    BOOST_TEST(bert(R"({"lowercase": false})", "Cr\u00e8me") == "Cr\u00e8me");
}

BOOST_AUTO_TEST_CASE(bad_fields_are_named_by_their_json_path) {
    try {
        bert(R"({"lowercase": "yes"})", "x");
        BOOST_FAIL("no error");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()) == "tokenizer.json: normalizer.lowercase is not true or false");
    }
}

BOOST_AUTO_TEST_SUITE_END()
