#include "openloop/tokenize/text/utf8.hpp"

namespace openloop::utf8 {

namespace {

// How far the sequence at pos is valid: the count of bytes of its longest
// valid prefix (the "maximal subpart" of Unicode's U+FFFD substitution).
std::size_t valid_prefix(std::string_view s, std::size_t pos, std::size_t& needed) {
    const auto b0 = static_cast<unsigned char>(s[pos]);
    unsigned char lo = 0x80, hi = 0xBF;
    if (b0 < 0x80) { needed = 1; return 1; }
    if (b0 >= 0xC2 && b0 <= 0xDF) needed = 2;
    else if (b0 >= 0xE0 && b0 <= 0xEF) {
        needed = 3;
        if (b0 == 0xE0) lo = 0xA0;
        if (b0 == 0xED) hi = 0x9F;  // no surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        needed = 4;
        if (b0 == 0xF0) lo = 0x90;
        if (b0 == 0xF4) hi = 0x8F;
    } else {
        needed = 1;
        return 0;
    }
    std::size_t n = 1;
    while (n < needed && pos + n < s.size()) {
        const auto b = static_cast<unsigned char>(s[pos + n]);
        if (b < (n == 1 ? lo : 0x80) || b > (n == 1 ? hi : 0xBF)) break;
        ++n;
    }
    return n;
}

}  // namespace

std::size_t sequence_length(std::string_view text, std::size_t pos) {
    std::size_t needed = 0;
    const std::size_t n = valid_prefix(text, pos, needed);
    return n == needed ? n : 0;
}

char32_t decode(std::string_view s, std::size_t pos, std::size_t length) {
    const auto b = [&](std::size_t i) { return char32_t(static_cast<unsigned char>(s[pos + i])); };
    switch (length) {
    case 1: return b(0);
    case 2: return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default: return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) | (b(3) & 0x3F);
    }
}

void append(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | (cp >> 6));
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | (cp >> 12));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | (cp >> 18));
        out += char(0x80 | ((cp >> 12) & 0x3F));
        out += char(0x80 | ((cp >> 6) & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

bool valid(std::string_view text) {
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t n = sequence_length(text, pos);
        if (n == 0) return false;
        pos += n;
    }
    return true;
}

std::string sanitize(std::string_view text) {
    if (valid(text)) return std::string(text);
    std::string out;
    out.reserve(text.size() + 8);
    for (std::size_t pos = 0; pos < text.size();) {
        std::size_t needed = 0;
        const std::size_t n = valid_prefix(text, pos, needed);
        if (n == needed) {
            out.append(text.substr(pos, n));
            pos += n;
        } else {
            out += "\xEF\xBF\xBD";
            pos += n == 0 ? 1 : n;
        }
    }
    return out;
}

}  // namespace openloop::utf8
