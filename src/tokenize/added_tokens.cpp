#include "openloop/tokenize/added_tokens.hpp"

#include "openloop/tokenize/text/pattern.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <unicode/uchar.h>

namespace openloop::hf {

namespace {

bool word_char(char32_t c) { return c == '_' || u_isalnum(UChar32(c)); }

// The code point before pos / at pos, or 0 at either end.
char32_t before(std::string_view s, std::size_t pos) {
    if (pos == 0) return 0;
    std::size_t start = pos - 1;
    while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
    const std::size_t n = utf8::sequence_length(s, start);
    return n == pos - start ? utf8::decode(s, start, n) : 0;
}

char32_t at(std::string_view s, std::size_t pos) {
    if (pos >= s.size()) return 0;
    const std::size_t n = utf8::sequence_length(s, pos);
    return n == 0 ? 0 : utf8::decode(s, pos, n);
}

}  // namespace

void added_tokens::add(added_token t) {
    if (t.content.empty()) return;
    std::uint32_t node = 0;
    for (const char c : t.content) {
        const std::uint64_t key = (std::uint64_t(node) << 8) | static_cast<unsigned char>(c);
        auto it = children_.find(key);
        if (it == children_.end()) {
            it = children_.emplace(key, std::uint32_t(ends_.size())).first;
            ends_.push_back(-1);
        }
        node = it->second;
    }
    first_byte_[static_cast<unsigned char>(t.content[0])] = true;
    // A repeated content: the later entry wins, as in a JavaScript Map.
    if (ends_[node] >= 0) {
        tokens_[std::size_t(ends_[node])] = std::move(t);
        return;
    }
    ends_[node] = int(tokens_.size());
    tokens_.push_back(std::move(t));
}

int added_tokens::longest_at(std::string_view text, std::size_t pos) const {
    int found = -1;
    std::uint32_t node = 0;
    for (std::size_t i = pos; i < text.size(); ++i) {
        auto it = children_.find((std::uint64_t(node) << 8) | static_cast<unsigned char>(text[i]));
        if (it == children_.end()) break;
        node = it->second;
        if (ends_[node] >= 0) found = ends_[node];
    }
    return found;
}

void added_tokens::split(std::string_view text, std::vector<section>& out) const {
    out.clear();
    std::size_t start = 0;
    for (std::size_t pos = 0; pos < text.size();) {
        const int t = first_byte_[static_cast<unsigned char>(text[pos])] ? longest_at(text, pos) : -1;
        if (t < 0) {
            ++pos;
            continue;
        }
        const added_token& tok = tokens_[std::size_t(t)];
        const std::size_t end = pos + tok.content.size();
        if (tok.single_word && (word_char(before(text, pos)) || word_char(at(text, end)))) {
            ++pos;
            continue;
        }
        if (pos > start) out.push_back({start, pos, -1});
        out.push_back({pos, end, t});
        start = pos = end;
    }
    if (start < text.size()) out.push_back({start, text.size(), -1});
    for (std::size_t i = 0; i < out.size(); ++i) {
        if (out[i].token < 0) continue;
        const added_token& tok = tokens_[std::size_t(out[i].token)];
        if (tok.lstrip && i > 0 && out[i - 1].token < 0) {
            section& s = out[i - 1];
            s.end = s.start + trim_js_end(text.substr(s.start, s.end - s.start)).size();
        }
        if (tok.rstrip && i + 1 < out.size() && out[i + 1].token < 0) {
            section& s = out[i + 1];
            s.start = s.end - trim_js_start(text.substr(s.start, s.end - s.start)).size();
        }
    }
}

}  // namespace openloop::hf
