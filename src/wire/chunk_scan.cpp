#include "openloop/wire/chunk_scan.hpp"

#include "openloop/wire/responses_event.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace openloop {
namespace {

// Well inside Boost.JSON's default of 32, so depth never decides differently.
constexpr int max_depth = 24;

void add_saturating(std::uint32_t& total, std::size_t n) {
    constexpr std::size_t max = std::numeric_limits<std::uint32_t>::max();
    total = static_cast<std::uint32_t>(std::min<std::size_t>(max, std::size_t{total} + std::min(n, max)));
}

// Where the plain run of string bytes from p ends: at a quote, a backslash or
// a control character. Eight bytes at a time: a chunk is mostly strings.
const char* plain_run(const char* p, const char* end) {
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
std::size_t code_points(const char* p, const char* end) {
    std::size_t n = 0;
    for (; p != end; ++p) n += (static_cast<unsigned char>(*p) & 0xC0) != 0x80;
    return n;
}

int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

// One pass over a chunk's JSON. Every method returns false to give up: the
// text is malformed, or of a shape left to the full decoder.
class scanner {
public:
    explicit scanner(std::string_view s) : p_(s.data()), end_(s.data() + s.size()) {}

    std::optional<chunk_info> run() {
        if (!root()) return std::nullopt;
        skip_ws();
        if (p_ != end_) return std::nullopt;
        if (const responses_event e = classify_responses_event(type_); e != responses_event::none) return responses(e);
        if (!seen_choices_) {
            if (!info_.has_usage) return std::nullopt;  // malformed: the full decoder says so
            info_.kind = chunk_kind::usage_only;
            return info_;
        }
        if (has_content_)
            info_.kind = chunk_kind::content;
        else if (has_role_)
            info_.kind = chunk_kind::role_only;
        else if (info_.has_usage)
            info_.kind = chunk_kind::usage_only;
        else
            info_.kind = chunk_kind::empty;
        return info_;
    }

private:
    const char* p_;
    const char* end_;
    int depth_ = 0;
    chunk_info info_;
    bool seen_choices_ = false;
    bool has_content_ = false;
    bool has_role_ = false;
    bool string_empty_ = false;  // the last string read had no bytes at all
    // A Responses event's parts, read before its "type" (often the last member) says it is one.
    std::string_view type_;
    std::size_t delta_chars_ = 0;
    chunk_info response_usage_;

    // As chunk.cpp's responses_chunk decides; error events are the full decoder's.
    std::optional<chunk_info> responses(responses_event e) {
        chunk_info info;
        info.kind = chunk_kind::empty;
        switch (e) {
        case responses_event::text_delta:
        case responses_event::reasoning_delta:
            add_saturating(info.content_chars, delta_chars_);
            if (e == responses_event::reasoning_delta) add_saturating(info.reasoning_chars, delta_chars_);
            if (delta_chars_ > 0) info.kind = chunk_kind::content;
            return info;
        case responses_event::terminal:
            response_usage_.kind = chunk_kind::completed;
            return response_usage_;
        case responses_event::failure: return std::nullopt;
        case responses_event::none:
        case responses_event::other: break;
        }
        return info;
    }

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
            const char* run = plain_run(p_, end_);
            chars += code_points(p_, run);
            p_ = run;
            if (p_ == end_) break;
            const auto c = static_cast<unsigned char>(*p_);
            if (c == '"') {
                string_empty_ = p_ == begin;
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
                    const int d = hex_digit(*p_++);
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

    bool root() {
        unsigned seen = 0;
        return object([&](std::string_view k) {
            if (k == "error") return first(seen, 1) && null_next();  // error chunks: the full decoder
            if (k == "object") {
                if (!first(seen, 2)) return false;
                if (peek() != '"') return skip_value();
                std::size_t chars = 0;
                std::string_view type;
                return string(chars, &type) && type != "error";
            }
            if (k == "usage") {
                if (!first(seen, 4)) return false;
                if (peek() != '{') return skip_value();
                info_.has_usage = true;
                return usage(info_, false);
            }
            if (k == "type") {
                // An escaped type is left to the full decoder: it might unescape to a Responses event's.
                std::size_t chars = 0;
                if (!first(seen, 16)) return false;
                return peek() == '"' ? string(chars, &type_) : skip_value();
            }
            if (k == "delta") return first(seen, 32) && text_chars(delta_chars_);
            if (k == "response") {
                if (!first(seen, 64)) return false;
                return peek() == '{' ? response() : skip_value();
            }
            if (k == "choices") {
                if (!first(seen, 8) || peek() != '[') return false;
                seen_choices_ = true;
                return array([this] { return peek() == '{' && choice(); });
            }
            return skip_value();
        });
    }

    // A usage figure: null is absent; a plain integer is read; anything but a
    // number is bad; other numbers (12.0, -1, 1e3) are the full decoder's.
    bool figure(std::int64_t& out, bool& bad) {
        const char c = peek();
        if (c == 'n') return literal("null");
        if (c == '-' || (c >= '0' && c <= '9')) {
            bool plain = false;
            std::int64_t v = 0;
            if (!number(plain, v) || !plain) return false;
            out = v;
            return true;
        }
        bad = true;
        return skip_value();
    }

    // A chunk's usage, or a Responses response.usage under its own names.
    bool usage(chunk_info& into, bool responses) {
        unsigned seen = 0;
        return object([&](std::string_view k) {
            if (k == (responses ? "input_tokens" : "prompt_tokens"))
                return first(seen, 1) && figure(into.prompt_tokens, into.bad_usage);
            if (k == (responses ? "output_tokens" : "completion_tokens"))
                return first(seen, 2) && figure(into.completion_tokens, into.bad_usage);
            if (k == (responses ? "input_tokens_details" : "prompt_tokens_details")) {
                if (!first(seen, 4)) return false;
                if (peek() != '{') return skip_value();
                unsigned inner = 0;
                return object([&](std::string_view d) {
                    if (d == "cached_tokens") return first(inner, 1) && figure(into.cached_tokens, into.bad_usage);
                    return skip_value();
                });
            }
            return skip_value();
        });
    }

    // A Responses event's response object: only its usage counts.
    bool response() {
        unsigned seen = 0;
        return object([&](std::string_view k) {
            if (k != "usage") return skip_value();
            if (!first(seen, 1)) return false;
            if (peek() != '{') return skip_value();
            response_usage_.has_usage = true;
            return usage(response_usage_, true);
        });
    }

    // {"name", "arguments"}: their code points.
    bool function_chars(std::size_t& chars) {
        unsigned seen = 0;
        return object([&](std::string_view k) {
            std::size_t n = 0;
            if (k == "name" || k == "arguments") {
                if (!first(seen, k == "name" ? 1u : 2u) || !text_chars(n)) return false;
                chars += n;
                return true;
            }
            return skip_value();
        });
    }

    bool choice() {
        ++info_.choices;
        unsigned seen = 0;
        std::size_t chars = 0;
        const bool ok = object([&](std::string_view k) {
            if (k == "finish_reason") {
                if (!first(seen, 1)) return false;
                const char c = peek();
                if (c == 'n') return literal("null");
                if (c == '"') {
                    std::size_t n = 0;
                    if (!string(n)) return false;
                    info_.finished = info_.finished || !string_empty_;
                    return true;
                }
                info_.finished = true;
                return skip_value();
            }
            if (k == "text") {
                std::size_t n = 0;
                if (!first(seen, 2) || !text_chars(n)) return false;
                chars += n;
                return true;
            }
            if (k == "delta") {
                if (!first(seen, 4)) return false;
                if (peek() != '{') return skip_value();
                return delta(chars);
            }
            return skip_value();
        });
        has_content_ = has_content_ || chars > 0;
        add_saturating(info_.content_chars, chars);
        return ok;
    }

    bool delta(std::size_t& chars) {
        unsigned seen = 0;
        std::size_t content = 0, reasoning_content = 0, reasoning = 0, tools = 0;
        const bool ok = object([&](std::string_view k) {
            if (k == "role") {
                if (!first(seen, 1)) return false;
                if (peek() == 'n') return literal("null");
                has_role_ = true;
                return skip_value();
            }
            if (k == "content") return first(seen, 2) && text_chars(content);
            if (k == "reasoning_content") return first(seen, 4) && text_chars(reasoning_content);
            if (k == "reasoning") return first(seen, 8) && text_chars(reasoning);
            if (k == "tool_calls") {
                if (!first(seen, 16)) return false;
                if (peek() != '[') return skip_value();
                return array([&] {
                    // The first tool-call delta may carry only an id: it is still generated output.
                    has_content_ = true;
                    if (peek() != '{') return skip_value();
                    unsigned call = 0;
                    return object([&](std::string_view c) {
                        if (c != "function") return skip_value();
                        if (!first(call, 1)) return false;
                        if (peek() != '{') return skip_value();
                        return function_chars(tools);
                    });
                });
            }
            if (k == "function_call") {
                if (!first(seen, 32)) return false;
                if (peek() != '{') return skip_value();
                return function_chars(tools);
            }
            return skip_value();
        });
        // vLLM renamed reasoning_content to reasoning and may send both; count once.
        const std::size_t r = reasoning_content != 0 ? reasoning_content : reasoning;
        chars += content + r + tools;
        add_saturating(info_.reasoning_chars, r);
        return ok;
    }
};

}  // namespace

std::optional<chunk_info> scan_chunk(std::string_view payload) { return scanner(payload).run(); }

}  // namespace openloop
