#include "openloop/wire/think_tags.hpp"

namespace openloop {

namespace {

constexpr std::u32string_view open_tag = U"<think>";
constexpr std::u32string_view close_tag = U"</think>";
static_assert(open_tag.size() == think_tag_reader::open_tag_size);

int hex_value(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// The character a JSON escape (after its backslash, at p) stands for; p moves past it.
// Only the tags' characters matter: anything else (a surrogate half too) reads as itself or 0.
char32_t unescape(std::string_view text, std::size_t& p) {
    const char e = text[p++];
    switch (e) {
    case 'n': return U'\n';
    case 't': return U'\t';
    case 'r': return U'\r';
    case 'b': return U'\b';
    case 'f': return U'\f';
    case 'u': {
        char32_t v = 0;
        for (int i = 0; i < 4 && p < text.size(); ++i) {
            const int d = hex_value(text[p++]);
            if (d < 0) return 0;
            v = v * 16 + static_cast<char32_t>(d);
        }
        return v;
    }
    default: return static_cast<unsigned char>(e);  // " \ /
    }
}

}  // namespace

std::optional<reasoning_parser> reasoning_parser_from(std::string_view name) {
    if (name == "auto") return reasoning_parser::auto_detect;
    if (name == "think-tags") return reasoning_parser::think_tags;
    if (name == "none") return reasoning_parser::none;
    return std::nullopt;
}

std::string_view reasoning_parser_name(reasoning_parser p) {
    switch (p) {
    case reasoning_parser::think_tags: return "think-tags";
    case reasoning_parser::none: return "none";
    case reasoning_parser::auto_detect: break;
    }
    return "auto";
}

void think_tag_reader::start(reasoning_parser p) {
    state_ = p == reasoning_parser::auto_detect ? state::opening
             : p == reasoning_parser::think_tags ? state::inside
                                                 : state::answer;
    matched_ = 0;
    used_ = false;
}

void think_tag_reader::step(char32_t c, std::size_t& thinking) {
    if (state_ == state::opening) {
        // Each character of the opening tag must come in order; any other ends the detection.
        if (c != open_tag[matched_]) {
            state_ = state::answer;
        } else if (++matched_ == open_tag.size()) {
            state_ = state::inside;
            matched_ = 0;
            used_ = true;
            thinking += open_tag.size();  // the tag itself is the thinking's first text
        }
        return;
    }
    ++thinking;
    used_ = true;
    // '<' starts the tag and appears nowhere else in it, so a mismatch restarts at it or at 0.
    if (c != close_tag[matched_]) {
        matched_ = c == U'<' ? 1 : 0;
    } else if (++matched_ == close_tag.size()) {
        state_ = state::answer;
    }
}

std::size_t think_tag_reader::read(std::string_view text, bool escaped) {
    std::size_t thinking = 0;
    if (state_ == state::opening && text.empty()) state_ = state::answer;  // the first content is no tag
    // The opening tag's characters that came in earlier texts: those texts count them.
    const std::size_t matched_before = matched_;
    for (std::size_t p = 0; p < text.size() && state_ != state::answer;) {
        const auto byte = static_cast<unsigned char>(text[p++]);
        char32_t c = byte;
        if (escaped && byte == '\\' && p < text.size()) {
            c = unescape(text, p);
        } else if ((byte & 0xC0) == 0x80) {
            // A continuation byte is no code point of its own (as utf8_length counts them) and
            // no tag's: it ends a partial tag, and a stream cannot open <think> with it.
            if (state_ == state::opening) state_ = state::answer;
            matched_ = 0;
            continue;
        } else if (byte >= 0x80) {
            c = 0x80;  // a multi-byte character's lead: one code point, no tag's
        }
        const bool was_opening = state_ == state::opening;
        step(c, thinking);
        if (was_opening && state_ == state::inside) thinking -= matched_before;
    }
    return thinking;
}

}  // namespace openloop
