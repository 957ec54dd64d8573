#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/normalizers/precompiled_normalizer.hpp"

#include <boost/json.hpp>

#include <stdexcept>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_precompiled_normalizer)

using namespace openloop::hf;

namespace {

// Compiled by libsentencepiece 0.1.97's trainer (--normalization_rule_tsv)
// from eight rules of our own: ﬁ -> fi, ① -> 1, U+00A0 -> space,
// e + U+0301 -> é, ſ -> s, ｶﾞ -> ガ, ｶ -> カ, U+200B -> nothing.
constexpr const char* small_charsmap =
    "AAQAAACQAQBlPAMAzAACAIEdAAAKAACAoA0AAAEAAIC/PQAACAAAgIAgAgCLBQAAAAAAgKAFAAADAACArAACAIF9AAAFAACAtg0A"
    "AA0AAIC+ZAIAngUAABEAAIAXAAAAFgAAAJHQAgAYAAAAGwAAABoAAAAdAAAAHAAAAB8AAAC94AIAIQAAACAAAAAjAAAAIgAAACUA"
    "AAAkAAAAJwAAACYAAAApAAAAKAAAACsAAAAqAAAALQAAACwAAAAvAAAALgAAADEAAAAwAAAAMwAAADIAAAA1AAAANAAAADcAAAA2"
    "AAAAOQAAADgAAAA7AAAAOgAAAD0AAAA8AAAAPwAAAD4AAABBAAAAQAAAAEMAAABCAAAARQAAAEQAAABHAAAARgAAAEkAAABIAAAA"
    "SwAAAEoAAABNAAAATAAAAE8AAABOAAAAUQAAAFAAAABTAAAAUgAAAFUAAABUAAAAVwAAAFYAAABZAAAAWAAAAFsAAABaAAAAXQAA"
    "AFwAAABfAAAAXgAAAGEAAABgAAAAYwAAAGIAAABlAAAAZAAAAGcAAABmAAAAaQAAAGgAAABrAAAAagAAAG0AAABsAAAAbwAAAG4A"
    "AABxAAAAcAAAAHMAAAByAAAAdQAAAHQAAAB3AAAAdgAAAHkAAAB4AAAAewAAAHoAAAB9AAAAfAAAAH8AAAB+AAAAgQAAAIAAAACD"
    "AAAAggAAAIUAAACEAAAA4jwAAIYAAACJAAAAiAAAAIsAAADvpAAAjQAAAIwAAACPAAAAjgAAAJEAAACQAAAAkwAAAJIAAACVAAAA"
    "lAAAAJcAAACWAAAAmQAAAJgAAACbAAAAmgAAAJ0AAACcAAAAnwAAAJ4AAAChAAAAxWQAAKMAAACiAAAApQAAAKQAAADCDAAApgAA"
    "AKkAAACoAAAAqwAAAKoAAACtAAAArAAAAK8AAACuAAAAsQAAALAAAACzAAAAsgAAALUAAAC0AAAAtwAAALYAAAC5AAAAuAAAALsA"
    "AAC6AAAAvQAAALwAAAC/AAAAvgAAAMEAAADAAAAAwwAAAMIAAADFAAAAxAAAAMcAAADGAAAAyQAAAMgAAADLAAAAygAAAM0AAADM"
    "AAAAzwAAAM4AAADRAAAA0AAAANMAAADSAAAA1QAAANQAAADXAAAA1gAAANkAAADYAAAA2wAAANoAAADdAAAA3AAAAN8AAADeAAAA"
    "4QAAAOAAAADjAAAA4gAAAOUAAADkAAAA5wAAAOYAAADpAAAA6AAAAOsAAADqAAAA7QAAAOwAAADvAAAA7gAAAPEAAADwAAAA8wAA"
    "APIAAAD1AAAA9AAAAPcAAAD2AAAA+QAAAPgAAAD7AAAA+gAAAP0AAADvQAEA/wAAAP4AAAAAIAAxAGZpAHMAw6kA44KrAOOCrAA=";

std::string normalized(std::string text, const char* charsmap = small_charsmap) {
    const boost::json::object o{{"type", "Precompiled"}, {"precompiled_charsmap", charsmap}};
    make_precompiled_normalizer(o, "tokenizer.json: normalizer")->apply(text, normalized_limit(text.size()));
    return text;
}

std::string error_of(const boost::json::object& o) {
    try {
        make_precompiled_normalizer(o, "tokenizer.json: normalizer");
    } catch (const std::runtime_error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_rules_replace_what_they_match) {
    BOOST_TEST(normalized("\uFB01ne\u2460") == "fine1");
    BOOST_TEST(normalized("a\u00A0b") == "a b");
    BOOST_TEST(normalized("x\u200By") == "xy");
    BOOST_TEST(normalized("cafe\u0301") == "caf\u00E9");  // a two-character rule, the grapheme whole
    BOOST_TEST(normalized("\uFF76") == "\u30AB");
    BOOST_TEST(normalized("hello world") == "hello world");
    BOOST_TEST(normalized("") == "");
}

BOOST_AUTO_TEST_CASE(graphemes_follow_hf_tokenizers_not_sentencepiece) {
    // A grapheme of 6 bytes or more goes character by character, so the
    // two-character rule for ｶﾞ is not used (SentencePiece gives ガ).
    BOOST_TEST(normalized("\uFF76\uFF9E") == "\u30AB\uFF9E");
    // A shorter grapheme is replaced whole by its first character's rule:
    // ſ + U+0301 becomes s, the accent lost (SentencePiece keeps it).
    BOOST_TEST(normalized("\u017F\u0301") == "s");
}

BOOST_AUTO_TEST_CASE(a_bad_charsmap_is_named_by_its_json_path) {
    BOOST_TEST(error_of({{"type", "Precompiled"}}) == "tokenizer.json: normalizer.precompiled_charsmap is missing");
    BOOST_TEST(error_of({{"precompiled_charsmap", "ab$d"}}) ==
               "tokenizer.json: normalizer.precompiled_charsmap is not base64");
    BOOST_TEST(error_of({{"precompiled_charsmap", "AAA="}}) ==
               "tokenizer.json: normalizer.precompiled_charsmap is shorter than its header");
    // A trie of 0x400 bytes announced in a blob of 8.
    BOOST_TEST(error_of({{"precompiled_charsmap", "AAQAAAAAAAA="}}) ==
               "tokenizer.json: normalizer.precompiled_charsmap has a trie size that does not fit it");
}

BOOST_AUTO_TEST_SUITE_END()
