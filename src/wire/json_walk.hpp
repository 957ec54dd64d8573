#pragma once
// A JSON walker over text in place, for the chunk scan (chunk_scan.cpp): it
// validates what it walks and counts a string's code points as the full
// decoder's utf8_length would, without building a value or copying a byte.
// Every method returns false to give up: the text is malformed, or of a
// shape left to the full decoder (escaped keys, surrogates, numbers it would
// read differently, deep nesting). Pure.

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace openloop {

namespace json_walk_detail {

// Where the plain run of string bytes from p ends: at a quote, a backslash or
// a control character. Eight bytes at a time: a chunk is mostly strings.
inline const char* plain_run(const char* p, const char* end) {
    constexpr std::uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
    while (end - p >= 8) {
        std::uint64_t v;
        std::memcpy(&v, p, 8);
        const std::uint64_t quote = v ^ (ones * '"'), slash = v ^ (ones * '\\');
        // A zero byte in quote or slash, or a byte below 0x20 in v (exact tests, no false positives).
        const std::uint64_t hit = ((quote - ones) & ~quote) | ((slash - ones) & ~slash) | ((v - ones * 0x20) & ~v);
        if (hit & highs) break;
        p += 8;
    }
    while (p != end) {
        const auto c = static_cast<unsigned char>(*p);
        if (c == '"' || c == '\\' || c < 0x20) break;
        ++p;
    }
    return p;
}

// Code points of plain string bytes: those that are not UTF-8 continuation bytes.
inline std::size_t code_points(const char* p, const char* end) {
    std::size_t n = 0;
    for (; p != end; ++p) n += (static_cast<unsigned char>(*p) & 0xC0) != 0x80;
    return n;
}

inline int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

}  // namespace json_walk_detail

class json_walker {
protected:
    // Well inside Boost.JSON's default of 32, so depth never decides differently.
    static constexpr int max_depth = 24;

    explicit json_walker(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}

    void skip_ws() {
        while (p_ != end_ && (*p_ == ' ' || *p_ == '\t' || *p_ == '\n' || *p_ == '\r')) ++p_;
    }
    char peek() {
        skip_ws();
        return p_ != end_ ? *p_ : '\0';
    }
    bool eat(char c) {
        if (peek() != c) return false;
        ++p_;
        return true;
    }

    // A string at p_: its code points once unescaped (utf8_length of what the
    // full decoder holds), and its raw text when it has no escape.
    bool string(std::size_t& chars, std::string_view* raw = nullptr) {
        if (!eat('"')) return false;
        const char* begin = p_;
        bool escaped = false;
        chars = 0;
        while (p_ != end_) {
            const char* run = json_walk_detail::plain_run(p_, end_);
            chars += json_walk_detail::code_points(p_, run);
            p_ = run;
            if (p_ == end_) break;
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                string_empty_ = p_ == begin;
                string_escaped_ = escaped;
                if (raw) *raw = escaped ? std::string_view{} : std::string_view(begin, static_cast<std::size_t>(p_ - begin));
                if (raw && escaped) return false;
                ++p_;
                return true;
            }
            if (c < 0x20) return false;
            escaped = true;
            if (++p_ == end_) return false;
            const char e = *p_++;
            if (e == 'u') {
                if (end_ - p_ < 4) return false;
                int v = 0;
                for (int i = 0; i < 4; ++i) {
                    const int d = json_walk_detail::hex_digit(*p_++);
                    if (d < 0) return false;
                    v = v * 16 + d;
                }
                if (v >= 0xD800 && v <= 0xDFFF) return false;  // surrogates: left to the full decoder
            } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
                return false;
            }
            ++chars;
        }
        return false;
    }

    bool key(std::string_view& k) {
        std::size_t chars = 0;
        if (!string(chars, &k)) return false;
        return eat(':');
    }

    // A number; plain: a non-negative integer of digits only, small enough
    // for int64 (value holds it), which the full decoder reads the same way.
    bool number(bool& plain, std::int64_t& value) {
        const char* start = p_;
        if (p_ != end_ && *p_ == '-') ++p_;
        if (p_ == end_) return false;
        if (*p_ == '0') {
            ++p_;
        } else if (*p_ >= '1' && *p_ <= '9') {
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        } else {
            return false;
        }
        const char* int_end = p_;
        if (p_ != end_ && *p_ == '.') {
            ++p_;
            if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
        }
        if (p_ != end_ && (*p_ == 'e' || *p_ == 'E')) {
            ++p_;
            if (p_ != end_ && (*p_ == '+' || *p_ == '-')) ++p_;
            const char* digits = p_;
            if (p_ == end_ || *p_ < '0' || *p_ > '9') return false;
            while (p_ != end_ && *p_ >= '0' && *p_ <= '9') ++p_;
            // A huge exponent or mantissa may overflow a double: the full decoder's call.
            if (p_ - digits > 2) return false;
        }
        if (p_ - start > 40) return false;
        plain = *start != '-' && int_end == p_ && p_ - start <= 18;
        value = 0;
        if (plain)
            for (const char* q = start; q != p_; ++q) value = value * 10 + (*q - '0');
        return true;
    }

    bool literal(std::string_view word) {
        if (static_cast<std::size_t>(end_ - p_) < word.size() || std::string_view(p_, word.size()) != word) return false;
        p_ += word.size();
        return true;
    }

    bool skip_value() {
        switch (peek()) {
        case '{': return object([this](std::string_view) { return skip_value(); });
        case '[': return array([this] { return skip_value(); });
        case '"': {
            std::size_t chars = 0;
            return string(chars);
        }
        case 't': return literal("true");
        case 'f': return literal("false");
        case 'n': return literal("null");
        default: {
            bool plain = false;
            std::int64_t v = 0;
            return number(plain, v);
        }
        }
    }

    bool null_next() {
        if (peek() != 'n') return false;
        return literal("null");
    }

    // An object at p_: each member's key to on_member, which reads its value.
    template <class OnMember>
    bool object(OnMember on_member) {
        if (!eat('{') || ++depth_ > max_depth) return false;
        if (eat('}')) return --depth_, true;
        do {
            std::string_view k;
            if (!key(k) || !on_member(k)) return false;
        } while (eat(','));
        --depth_;
        return eat('}');
    }

    template <class OnElement>
    bool array(OnElement on_element) {
        if (!eat('[') || ++depth_ > max_depth) return false;
        if (eat(']')) return --depth_, true;
        do {
            if (!on_element()) return false;
        } while (eat(','));
        --depth_;
        return eat(']');
    }

    // Each key the decoder reads counts once per object: the full decoder's
    // choice between duplicates is not ours to guess.
    static bool first(unsigned& seen, unsigned bit) {
        if (seen & bit) return false;
        seen |= bit;
        return true;
    }

    // A string member's code points; 0 for any other value.
    bool text_chars(std::size_t& chars) {
        chars = 0;
        if (peek() == '"') return string(chars);
        return skip_value();
    }

    // The same, and the string's text as it lies (escapes kept; escaped says whether it has
    // any); empty for any other value.
    bool text_chars(std::size_t& chars, std::string_view& text, bool& escaped) {
        chars = 0;
        text = {};
        escaped = false;
        if (peek() != '"') return skip_value();
        const char* begin = p_ + 1;
        if (!string(chars)) return false;
        text = std::string_view(begin, static_cast<std::size_t>(p_ - 1 - begin));
        escaped = string_escaped_;
        return true;
    }

    const char* p_;
    const char* end_;
    int depth_ = 0;
    bool string_empty_ = false;  // the last string read had no bytes at all
    bool string_escaped_ = false;  // ... had an escape
};

}  // namespace openloop
