#pragma once
// The regular expressions of tokenizer pre-tokenizers and normalizers, on
// PCRE2 (UTF, Unicode properties, JIT-compiled). A pattern is read in the
// dialect of the implementation whose ids we match: tokenizer.json's patterns
// as transformers.js runs them (JavaScript's /gu: \s, \d, \w and . as
// JavaScript defines them), tiktoken's as Rust's regex crate does (\s is
// Unicode White_Space). \p{..} also holds what Unicode assigned after PCRE2's
// tables (from ICU), as both references know it. Text must be valid UTF-8
// (utf8::sanitize). Pure.

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace openloop {

enum class regex_dialect { javascript, rust };

class unicode_regex {
public:
    // Throws std::runtime_error "<what> regex /<pattern>/ does not compile: <PCRE2's
    // message> at offset N"; what names where the pattern comes from ("<file>: <path>").
    unicode_regex(std::string_view pattern, regex_dialect dialect, const std::string& what);
    ~unicode_regex();
    unicode_regex(unicode_regex&&) noexcept;
    unicode_regex& operator=(unicode_regex&&) noexcept;

    // Calls f(start, end) for each non-empty match, left to right, as a /g
    // search does. Throws input_error naming what and the pattern when PCRE2 gives
    // up (its match limit, for a pattern that backtracks catastrophically).
    template <class F>
    void for_each_match(std::string_view text, F&& f) const {
        search s(*this, text);
        std::size_t start = 0, end = 0;
        while (s.next(start, end)) f(start, end);
    }

    // One pass over a text; match data made once per pass.
    class search {
    public:
        search(const unicode_regex& re, std::string_view text);
        ~search();
        search(const search&) = delete;
        search& operator=(const search&) = delete;
        bool next(std::size_t& start, std::size_t& end);

    private:
        const unicode_regex& re_;
        std::string_view text_;
        std::size_t pos_ = 0;
        void* match_data_;
    };

private:
    struct compiled;
    std::unique_ptr<compiled> re_;
};

// The pattern rewritten so that PCRE2 (UTF, UCP) means what the dialect
// means; exposed for the tests.
std::string translate_pattern(std::string_view pattern, regex_dialect dialect);

}  // namespace openloop
