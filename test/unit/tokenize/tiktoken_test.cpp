// tiktoken rank files and what they share with tokenizer.json: the merging
// core (scan and heap agree), UTF-8 made valid as JavaScript makes it, and
// the regex dialects, with Unicode assignments newer than PCRE2's tables.

#include <boost/test/unit_test.hpp>

#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/tokenize/models/bpe_merge.hpp"
#include "openloop/tokenize/text/unicode_regex.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

BOOST_AUTO_TEST_SUITE(unit_tiktoken)

using namespace openloop;
using ids = std::vector<std::int32_t>;

namespace {

struct rank_file {
    std::filesystem::path dir;
    std::string path;
    explicit rank_file(const std::string& name, const std::string& lines) {
        std::string tmpl = (std::filesystem::temp_directory_path() / "openloop-tiktoken-XXXXXX").string();
        dir = mkdtemp(tmpl.data());
        path = (dir / name).string();
        std::ofstream(path) << lines;
    }
    ~rank_file() {
        std::error_code ec;
        std::filesystem::remove_all(dir, ec);
    }
};

// a 0, b 1, " " 2, ab 3, aa 4, aab 5, " a" 6 (base64 of each).
const std::string tiny_ranks = "YQ== 0\nYg== 1\nIA== 2\nYWI= 3\nYWE= 4\nYWFi 5\nIGE= 6\n";

std::vector<std::pair<std::uint32_t, std::uint32_t>> spans(const std::vector<bpe::part>& parts) {
    std::vector<std::pair<std::uint32_t, std::uint32_t>> out;
    for (const auto& p : parts) out.emplace_back(p.start, p.end);
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(tiktoken_merges_by_the_rank_of_the_joined_bytes) {
    rank_file f("cl100k_base.tiktoken", tiny_ranks);
    const auto tok = load_tiktoken(f.path);
    // "aab" is a token; " aab" is not: ab (3), then aab (5), " " stays.
    BOOST_TEST(tok->encode("aab aab", false) == ids({5, 2, 5}), boost::test_tools::per_element());
    // Special tokens in text are matched.
    BOOST_TEST(tok->encode("a<|endoftext|>b", false) == ids({0, 100257, 1}), boost::test_tools::per_element());
    BOOST_TEST(tok->decode(ids{5, 2, 5, 100257}, false) == "aab aab<|endoftext|>");
    BOOST_TEST(tok->decode(ids{5, 100257}, true) == "aab");
    BOOST_TEST(tok->vocab_size() == 100277u);
}

BOOST_AUTO_TEST_CASE(tiktoken_errors_name_the_file_and_line) {
    rank_file bad("o200k_base.tiktoken", "YQ== 0\nnot-base64! 1\n");
    try {
        load_tiktoken(bad.path);
        BOOST_FAIL("a bad line was accepted");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).starts_with(bad.path + ":2: not base64"), e.what());
    }
    rank_file unnamed("ranks.tiktoken", tiny_ranks);
    BOOST_CHECK_THROW(load_tiktoken(unnamed.path), std::runtime_error);
}

BOOST_AUTO_TEST_CASE(merge_scan_and_heap_agree) {
    // A rank for every (start, end) from a fixed hash, some none; the scan
    // and the heap must pick the same pairs in the same order.
    const auto rank_of = [](const bpe::part& l, const bpe::part& r) {
        const std::uint32_t h = (l.start * 2654435761u) ^ (r.end * 40503u);
        return h % 5 == 0 ? bpe::merge_rank{} : bpe::merge_rank{h % 97, std::int32_t(r.end - l.start)};
    };
    for (std::uint32_t n : {2u, 5u, 47u, 48u, 200u}) {
        std::vector<bpe::part> a(n);
        for (std::uint32_t i = 0; i < n; ++i) a[i] = {i, i + 1, 1};
        auto b = a;
        auto fn = rank_of;
        bpe::detail::merge_by_scan(a, fn);
        bpe::detail::merge_by_heap(b, fn);
        BOOST_TEST(spans(a) == spans(b), "n = " << n);
        BOOST_TEST(a.size() < n);
    }
}

BOOST_AUTO_TEST_CASE(invalid_utf8_becomes_replacement_characters) {
    BOOST_TEST(utf8::sanitize("ok é") == "ok é");
    BOOST_TEST(utf8::sanitize("a\xC3") == "a\uFFFD");
    // A truncated sequence is one U+FFFD (its maximal subpart) ...
    BOOST_TEST(utf8::sanitize("a\xE2\x82" "b") == "a\uFFFD" "b");
    // ... bytes that cannot start or continue one are one each.
    BOOST_TEST(utf8::sanitize("\xF0\x80") == "\uFFFD\uFFFD");
    BOOST_TEST(utf8::sanitize("\xED\xA0\x80") == "\uFFFD\uFFFD\uFFFD");  // a surrogate
    BOOST_TEST(utf8::sanitize("\xFF") == "\uFFFD");
}

BOOST_AUTO_TEST_CASE(regex_dialects_define_whitespace_and_digits_as_their_languages_do) {
    const auto matches = [](std::string_view pattern, regex_dialect d, std::string_view text) {
        std::string out;
        unicode_regex(pattern, d, "test").for_each_match(text, [&](std::size_t s, std::size_t e) {
            out += "[" + std::string(text.substr(s, e - s)) + "]";
        });
        return out;
    };
    // JavaScript's \s has U+FEFF and not U+0085; Rust's the other way round.
    BOOST_TEST(matches("\\s+", regex_dialect::javascript, "a\uFEFF\u0085b") == "[\uFEFF]");
    BOOST_TEST(matches("\\s+", regex_dialect::rust, "a\uFEFF\u0085b") == "[\u0085]");
    // JavaScript's \d is ASCII; \p{N} is not.
    BOOST_TEST(matches("\\d+", regex_dialect::javascript, "1\u0661") == "[1]");
    BOOST_TEST(matches("\\p{N}+", regex_dialect::javascript, "1\u0661") == "[1\u0661]");
    // transformers.js's rewrite of the case-insensitive contractions.
    BOOST_TEST(matches("(?i:'s|'t|'re|'ve|'m|'ll|'d)", regex_dialect::javascript, "'S'LL'x") == "['S]['LL]");
    BOOST_TEST(matches("[^\\s\\p{L}]+", regex_dialect::javascript, "a!? b") == "[!?]");
    // Unicode 15's additions (PCRE2 10.42 has 14): an emoji is \p{S}, a CJK
    // extension H ideograph \p{L}, inside a class and out.
    BOOST_TEST(matches("\\p{S}+", regex_dialect::rust, "a\U0001FAF8b") == "[\U0001FAF8]");
    BOOST_TEST(matches("[^\\p{L}]+", regex_dialect::javascript, "\U00031350!") == "[!]");
    BOOST_CHECK_THROW(unicode_regex("(", regex_dialect::rust, "test"), std::runtime_error);
}

BOOST_AUTO_TEST_SUITE_END()
