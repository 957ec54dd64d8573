#include "openloop/wire/chunk_scan.hpp"

#include "json_walk.hpp"

#include "openloop/wire/responses_event.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <tuple>
#include <utility>

namespace openloop {
namespace {

// One pass over a chunk's JSON. Every method returns false to give up: the
// text is malformed, or of a shape left to the full decoder.
class scanner : json_walker {
public:
    explicit scanner(std::string_view s) : json_walker(s) {}

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
    chunk_info info_;
    bool seen_choices_ = false;
    bool has_content_ = false;
    bool has_role_ = false;
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
            if (k == (responses ? "input_tokens_details" : "prompt_tokens_details"))
                return first(seen, 4) && details("cached_tokens", into.cached_tokens, into.bad_usage);
            if (k == (responses ? "output_tokens_details" : "completion_tokens_details"))
                return first(seen, 8) && details("reasoning_tokens", into.reasoning_tokens, into.bad_usage);
            return skip_value();
        });
    }

    // A usage details object: the one figure wanted of it.
    bool details(std::string_view wanted, std::int64_t& out, bool& bad) {
        if (peek() != '{') return skip_value();
        unsigned inner = 0;
        return object([&](std::string_view d) {
            if (d == wanted) return first(inner, 1) && figure(out, bad);
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
        // Its generated text as the full decoder reads it (a delta's content, or its text), escaped or not.
        std::pair<std::string_view, bool> text, content;
        bool has_delta = false;
        const bool ok = object([&](std::string_view k) {
            if (k == "finish_reason") {
                if (!first(seen, 1)) return false;
                const char c = peek();
                if (c == 'n') return literal("null");
                if (c == '"') {
                    // An escaped reason is the full decoder's: it might unescape to "tool_calls".
                    std::size_t n = 0;
                    std::string_view reason;
                    if (!string(n, &reason)) return false;
                    info_.finished = info_.finished || !string_empty_;
                    if (reason == "tool_calls" || reason == "function_call") info_.tool_call = true;
                    return true;
                }
                info_.finished = true;
                return skip_value();
            }
            if (k == "text") {
                std::size_t n = 0;
                if (!first(seen, 2) || !text_chars(n, text.first, text.second)) return false;
                chars += n;
                return true;
            }
            if (k == "delta") {
                if (!first(seen, 4)) return false;
                if (peek() != '{') return skip_value();
                has_delta = true;
                return delta(chars, content.first, content.second);
            }
            return skip_value();
        });
        if (info_.choices == 1) std::tie(info_.text, info_.text_escaped) = has_delta ? content : text;
        has_content_ = has_content_ || chars > 0;
        add_saturating(info_.content_chars, chars);
        return ok;
    }

    bool delta(std::size_t& chars, std::string_view& text, bool& escaped) {
        unsigned seen = 0;
        std::size_t content = 0, reasoning_content = 0, reasoning = 0, tools = 0;
        const bool ok = object([&](std::string_view k) {
            if (k == "role") {
                if (!first(seen, 1)) return false;
                if (peek() == 'n') return literal("null");
                has_role_ = true;
                return skip_value();
            }
            if (k == "content") return first(seen, 2) && text_chars(content, text, escaped);
            if (k == "reasoning_content") return first(seen, 4) && text_chars(reasoning_content);
            if (k == "reasoning") return first(seen, 8) && text_chars(reasoning);
            if (k == "tool_calls") {
                if (!first(seen, 16)) return false;
                if (peek() != '[') return skip_value();
                return array([&] {
                    // The first tool-call delta may carry only an id: it is still generated output.
                    has_content_ = true;
                    info_.tool_call = true;
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
                info_.tool_call = true;
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
