#pragma once
// A tokenizer.json "pattern": {"String": "..."} (literal) or {"Regex": "..."}
// (read as transformers.js reads it), as used by the Replace normalizer and
// decoder and the Split pre-tokenizer: the matches in a text, and replacing
// them.

#include "openloop/tokenize/text/unicode_regex.hpp"

#include <boost/json/value.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop::hf {

class text_pattern {
public:
    // path names the "pattern" member for errors.
    text_pattern(const boost::json::value& v, const std::string& path);

    // The non-empty matches, left to right, as [start, end) byte offsets.
    void matches(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& out) const;
    // text with every match replaced by content; cut short once it passes limit bytes
    // (a normalizer's bound, stages.hpp), which the caller then refuses.
    std::string replace_all(std::string_view text, std::string_view content,
                            std::size_t limit = std::string::npos) const;

private:
    std::string literal_;
    std::optional<unicode_regex> regex_;
};

// The characters JavaScript's trim() removes (WhiteSpace, LineTerminator).
bool is_js_space(char32_t cp);
std::string_view trim_js_start(std::string_view s);
std::string_view trim_js_end(std::string_view s);

}  // namespace openloop::hf
