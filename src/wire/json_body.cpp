#include "openloop/wire/json_body.hpp"

#include "json_body_keys.hpp"

#include <boost/json/basic_parser_impl.hpp>

#include <algorithm>
#include <array>
#include <cstring>
#include <limits>

namespace openloop {

namespace json = boost::json;

namespace {

using json_body_keys::key;
using json_body_keys::key_of;
using json_body_keys::where;

constexpr std::size_t max_depth = 64;

// Where the scan is in the body, and what the end of each container adds up
// (a choice's or an output item's text, a message's reasoning).
struct body_shape {
    json_body_info out;
    std::array<where, max_depth + 1> stack{};
    std::size_t depth = 0;
    key pending = key::other;  // the member whose value comes next
    bool root_object = false;
    bool bad_shape = false;
    bool error = false;
    std::size_t choice_chars = 0;
    std::size_t reasoning_content = 0, reasoning = 0;  // of the message in hand
    // Of the Responses output item in hand: its text, and whether its type
    // (which may come after its content) says it is reasoning.
    std::size_t item_chars = 0;
    bool item_reasoning = false;

    where top() const { return depth == 0 ? where::other : stack[depth]; }

    bool push(bool object) {
        const where parent = top();
        where child = where::other;
        if (depth == 0) {
            root_object = object;
            child = object ? where::root : where::other;
        } else if (parent == where::choices) {
            if (object) {
                ++out.info.choices;
                choice_chars = 0;
                child = where::choice;
            } else {
                bad_shape = true;
            }
        } else if (parent == where::output) {
            if (object) {
                item_chars = 0;
                item_reasoning = false;
                child = where::output_item;
            } else {
                bad_shape = true;
            }
        } else if (parent == where::parts) {
            child = object ? where::part : where::other;
        } else if (parent == where::data) {
            ++out.data_items;
        } else if (parent == where::tool_calls) {
            // A tool call that carries only an id is still generated output.
            out.info.kind = chunk_kind::content;
            out.info.tool_call = true;
        } else {
            child = member_container(parent, object);
        }
        pending = key::other;
        if (depth == max_depth) return false;
        stack[++depth] = child;
        return true;
    }

    where member_container(where parent, bool object) {
        const key k = pending;
        switch (parent) {
        case where::root:
            if (k == key::usage && object) {
                out.info.has_usage = true;
                return where::usage;
            }
            if (k == key::choices) {
                if (!object) {
                    out.has_choices = true;
                    return where::choices;
                }
                bad_shape = true;
            }
            if (k == key::output) {
                if (!object) {
                    out.has_output = true;
                    return where::output;
                }
                bad_shape = true;
            }
            if (k == key::data) {
                if (!object) {
                    out.has_data = true;
                    return where::data;
                }
                bad_shape = true;
            }
            if (k == key::error) {
                error = true;
                return object ? where::error : where::other;
            }
            return where::other;
        case where::usage:
            if (!object) return where::other;
            return k == key::details ? where::details : k == key::output_details ? where::output_details : where::other;
        case where::output_item: return (k == key::content || k == key::summary) && !object ? where::parts : where::other;
        case where::choice: return k == key::message && object ? where::message : where::other;
        case where::message:
            if (k == key::tool_calls && !object) return where::tool_calls;
            if (k != key::function_call || !object) return where::other;
            out.info.tool_call = true;
            return where::function;
        case where::other:
            // A tool call's own "function" object: its name and arguments are output.
            return k == key::function && object && depth >= 2 && stack[depth - 1] == where::tool_calls
                       ? where::function
                       : where::other;
        default: return where::other;
        }
    }

    void pop() {
        const where done = top();
        if (depth > 0) --depth;
        if (done == where::message) {
            // vLLM renamed reasoning_content to reasoning and may send both; count once.
            const std::size_t r = reasoning_content > 0 ? reasoning_content : reasoning;
            choice_chars += r;
            add_saturating(out.info.reasoning_chars, r);
            reasoning_content = reasoning = 0;
        } else if (done == where::choice) {
            if (choice_chars > 0) out.info.kind = chunk_kind::content;
            add_saturating(out.info.content_chars, choice_chars);
        } else if (done == where::output_item) {
            if (item_chars > 0) out.info.kind = chunk_kind::content;
            add_saturating(out.info.content_chars, item_chars);
            if (item_reasoning) add_saturating(out.info.reasoning_chars, item_chars);
        }
        pending = key::other;
    }

    // A scalar that is an element of an array rather than a member's value.
    bool element_scalar() {
        const where w = top();
        if (w == where::choices || w == where::output) bad_shape = true;
        if (w == where::data) ++out.data_items;
        return w == where::choices || w == where::data || w == where::tool_calls || w == where::output || w == where::parts;
    }

};

// What each value means where body_shape says the scan is (usage figures,
// finish_reason, text, an error), as Boost.JSON's SAX parser reports them.
struct handler : body_shape {
    static constexpr std::size_t max_array_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_object_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_string_size = static_cast<std::size_t>(-1);
    static constexpr std::size_t max_key_size = static_cast<std::size_t>(-1);

    // A key, and an "object" member's value, as far as these buffers hold them:
    // longer ones are no name this scanner looks for.
    std::array<char, 32> key_text{};
    std::size_t key_len = 0;
    std::array<char, 16> value_text{};
    std::size_t value_len = 0;

    void reset() { *this = handler{}; }

    // A usage figure: as chunk.cpp reads one (12.0 is 12; negative, fractional,
    // beyond int64 or not a number is bad and reads -1).
    std::int64_t* usage_slot() {
        if (top() == where::usage && pending == key::prompt_tokens) return &out.info.prompt_tokens;
        if (top() == where::usage && pending == key::completion_tokens) return &out.info.completion_tokens;
        if (top() == where::details && pending == key::cached_tokens) return &out.info.cached_tokens;
        if (top() == where::output_details && pending == key::reasoning_tokens) return &out.info.reasoning_tokens;
        return nullptr;
    }
    void figure(std::int64_t v, bool ok) {
        if (std::int64_t* slot = usage_slot()) {
            *slot = ok && v >= 0 ? v : -1;
            if (!ok || v < 0) out.info.bad_usage = true;
        }
        if (top() == where::error && pending == key::code && ok) out.info.error_code = std::max<std::int64_t>(v, 0);
        scalar_seen(true);
    }
    // Any scalar value other than a string or null: for root.error and finish_reason.
    void scalar_seen(bool not_null) {
        if (!not_null) {
            pending = key::other;
            return;
        }
        if (top() == where::root && pending == key::error) error = true;
        if (top() == where::choice && pending == key::finish_reason) out.info.finished = true;
        pending = key::other;
    }

    void string_part(std::string_view s) {
        const where w = top();
        const key k = pending;
        const bool output = (w == where::choice && k == key::text) || (w == where::message && k == key::content) ||
                            (w == where::function && (k == key::name || k == key::arguments));
        if (output) choice_chars += utf8_length(s);
        // A top-level "text" is a transcription's answer (vLLM's TranscriptionResponse).
        if (w == where::root && k == key::text) {
            out.has_text = true;
            if (!s.empty()) out.info.kind = chunk_kind::content;
            add_saturating(out.info.content_chars, utf8_length(s));
        }
        // A Responses item's text: its parts' text (or refusal), a function call's name and arguments.
        if ((w == where::part && (k == key::text || k == key::refusal)) ||
            (w == where::output_item && (k == key::name || k == key::arguments)))
            item_chars += utf8_length(s);
        if (w == where::message && k == key::reasoning_content) reasoning_content += utf8_length(s);
        if (w == where::message && k == key::reasoning) reasoning += utf8_length(s);
        if ((w == where::root && k == key::object) || (w == where::output_item && k == key::type) ||
            (w == where::choice && k == key::finish_reason)) {
            const std::size_t n = std::min(s.size(), value_text.size() - std::min(value_text.size(), value_len));
            std::memcpy(value_text.data() + value_len, s.data(), n);
            value_len += s.size();
        }
        if (std::int64_t* slot = usage_slot()) {
            *slot = -1;
            out.info.bad_usage = true;
        }
    }
    void string_end(std::size_t total) {
        const where w = top();
        if (w == where::root && pending == key::object && value_len == 5 &&
            std::string_view(value_text.data(), 5) == "error")
            error = true;
        if (w == where::output_item && pending == key::type && value_len == 9 &&
            std::string_view(value_text.data(), 9) == "reasoning")
            item_reasoning = true;
        if (w == where::root && pending == key::error) error = true;
        if (w == where::choice && pending == key::finish_reason && total > 0) out.info.finished = true;
        if (w == where::choice && pending == key::finish_reason &&
            ((value_len == 10 && std::string_view(value_text.data(), 10) == "tool_calls") ||
             (value_len == 13 && std::string_view(value_text.data(), 13) == "function_call")))
            out.info.tool_call = true;
        value_len = 0;
        pending = key::other;
    }

    void key_part(std::string_view s) {
        const std::size_t n = std::min(s.size(), key_text.size() - std::min(key_text.size(), key_len));
        std::memcpy(key_text.data() + key_len, s.data(), n);
        key_len += s.size();
    }

    bool on_document_begin(json::error_code&) { return true; }
    bool on_document_end(json::error_code&) { return true; }
    bool on_array_begin(json::error_code& ec) { return push(false) || fail(ec); }
    bool on_array_end(std::size_t, json::error_code&) {
        pop();
        return true;
    }
    bool on_object_begin(json::error_code& ec) { return push(true) || fail(ec); }
    bool on_object_end(std::size_t, json::error_code&) {
        pop();
        return true;
    }
    bool on_string_part(json::string_view s, std::size_t, json::error_code&) {
        string_part(s);
        return true;
    }
    bool on_string(json::string_view s, std::size_t n, json::error_code&) {
        if (element_scalar()) return true;
        string_part(s);
        string_end(n);
        return true;
    }
    bool on_key_part(json::string_view s, std::size_t, json::error_code&) {
        key_part(s);
        return true;
    }
    bool on_key(json::string_view s, std::size_t, json::error_code&) {
        key_part(s);
        pending = key_len <= key_text.size() ? key_of(std::string_view(key_text.data(), key_len)) : key::other;
        key_len = 0;
        return true;
    }
    bool on_number_part(json::string_view, json::error_code&) { return true; }
    bool on_int64(std::int64_t i, json::string_view, json::error_code&) {
        if (!element_scalar()) figure(i, true);
        return true;
    }
    bool on_uint64(std::uint64_t, json::string_view, json::error_code&) {
        if (!element_scalar()) figure(-1, false);  // beyond int64: on_int64 takes the rest
        return true;
    }
    bool on_double(double d, json::string_view, json::error_code&) {
        if (element_scalar()) return true;
        const bool integral = d >= 0 && d < 9.2e18 && d == static_cast<double>(static_cast<std::int64_t>(d));
        figure(integral ? static_cast<std::int64_t>(d) : -1, integral);
        return true;
    }
    bool on_bool(bool, json::error_code&) {
        if (element_scalar()) return true;
        if (std::int64_t* slot = usage_slot()) {
            *slot = -1;
            out.info.bad_usage = true;
        }
        scalar_seen(true);
        return true;
    }
    bool on_null(json::error_code&) {
        if (!element_scalar()) scalar_seen(false);
        return true;
    }
    bool on_comment_part(json::string_view, json::error_code&) { return true; }
    bool on_comment(json::string_view, json::error_code&) { return true; }

    static bool fail(json::error_code& ec) {
        ec = json::error::too_deep;
        return false;
    }
};

json::parse_options options() {
    json::parse_options opt;
    opt.max_depth = max_depth;
    opt.allow_invalid_utf8 = true;  // as for chunks: code points are then approximate
    return opt;
}

bool all_space(std::string_view s) {
    return s.find_first_not_of(" \t\r\n") == std::string_view::npos;
}

}  // namespace

struct json_body_scanner::impl {
    impl() : parser(options()) {}
    json::basic_parser<handler> parser;
    bool failed = false;
};

json_body_scanner::json_body_scanner() : impl_(std::make_unique<impl>()) {}
json_body_scanner::~json_body_scanner() = default;

void json_body_scanner::reset() {
    impl_->parser.reset();
    impl_->parser.handler().reset();
    impl_->failed = false;
}

bool json_body_scanner::feed(std::string_view bytes) {
    if (impl_->failed) return false;
    if (impl_->parser.done()) {
        impl_->failed = !all_space(bytes);  // nothing may follow the document but whitespace
        return !impl_->failed;
    }
    json::error_code ec;
    const std::size_t n = impl_->parser.write_some(true, bytes.data(), bytes.size(), ec);
    if (ec || (impl_->parser.done() && !all_space(bytes.substr(n)))) impl_->failed = true;
    return !impl_->failed;
}

json_body_info json_body_scanner::finish() {
    auto& p = impl_->parser;
    if (!impl_->failed && !p.done()) {
        json::error_code ec;
        p.write_some(false, nullptr, 0, ec);
        if (ec) impl_->failed = true;
    }
    const handler& h = p.handler();
    json_body_info r = h.out;
    if (impl_->failed || !p.done() || !h.root_object || h.bad_shape) {
        json_body_info bad;
        bad.info.kind = chunk_kind::malformed;
        return bad;
    }
    if (h.error) {
        r.info.kind = chunk_kind::error;
    } else if (r.info.kind != chunk_kind::content) {
        r.info.kind = r.info.has_usage ? chunk_kind::usage_only : chunk_kind::empty;
    }
    return r;
}

}  // namespace openloop
