#include "openloop/wire/chunk.hpp"

#include "openloop/base/trim.hpp"
#include "openloop/wire/chunk_scan.hpp"
#include "openloop/wire/responses_event.hpp"

#include <boost/json/value.hpp>

#include <algorithm>
#include <limits>

namespace openloop {

namespace json = boost::json;

namespace {

const json::value* member(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v && !v->is_null() ? v : nullptr;
}

const json::object* object_member(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v ? v->if_object() : nullptr;
}

const json::string* string_of(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v ? v->if_string() : nullptr;
}

// Code points of a string member; 0 when absent, null or not a string.
std::size_t string_chars(const json::object& o, std::string_view key) {
    const json::string* s = string_of(o, key);
    return s ? utf8_length(*s) : 0;
}

// An integer member (servers may write 12.0 for 12); -1 when absent or not integral.
std::int64_t int_member(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    if (!v || !v->is_number())
        return -1;
    json::error_code ec;
    const auto n = v->to_number<std::int64_t>(ec);
    return ec ? -1 : n;
}

// A usage figure: -1 when absent or null. A figure that is present but not a
// non-negative integer within int64 (12.0 counts as 12) sets bad and reads -1,
// so no caller ever casts a figure it cannot trust.
std::int64_t usage_member(const json::object& o, std::string_view key, bool& bad) {
    const json::value* v = o.if_contains(key);
    if (!v || v->is_null())
        return -1;
    json::error_code ec;
    const auto n = v->is_number() ? v->to_number<std::int64_t>(ec) : -1;
    if (!v->is_number() || ec || n < 0) {
        bad = true;
        return -1;
    }
    return n;
}

std::size_t tool_call_chars(const json::object& call) {
    const json::object* fn = object_member(call, "function");
    return fn ? string_chars(*fn, "name") + string_chars(*fn, "arguments") : 0;
}

// The tool calls' pieces in a chat delta's tool_calls, each to the call of its index (0 when a
// server leaves it out): the id and name come once, in the call's first delta, the arguments
// in pieces after it.
void append_tool_call(const json::object& delta, streamed_answer& out) {
    const json::value* tools = delta.if_contains("tool_calls");
    const json::array* calls = tools ? tools->if_array() : nullptr;
    if (!calls) return;
    for (const json::value& c : *calls) {
        const json::object* call = c.if_object();
        if (!call) continue;
        const json::value* index = call->if_contains("index");
        const std::int64_t at = index ? int_member(*call, "index") : 0;
        tool_call_text* kept = at >= 0 ? out.calls.at(static_cast<std::size_t>(at)) : nullptr;
        if (!kept) continue;
        out.tool_call = true;
        if (const json::value* id = call->if_contains("id"); id && id->is_string()) kept->id.assign(id->get_string());
        const json::object* fn = object_member(*call, "function");
        if (!fn) continue;
        // Servers send the name once; one that repeats it in every delta still names one function.
        if (const json::value* name = fn->if_contains("name"); name && name->is_string() && name->get_string() != kept->name)
            kept->name.append(name->get_string());
        if (const json::value* args = fn->if_contains("arguments"); args && args->is_string())
            kept->arguments.append(args->get_string());
    }
}

// A chunk's usage, or a Responses response.usage under its own names.
void read_usage(const json::object& usage, bool responses, chunk_info& info) {
    info.has_usage = true;
    info.prompt_tokens = usage_member(usage, responses ? "input_tokens" : "prompt_tokens", info.bad_usage);
    info.completion_tokens = usage_member(usage, responses ? "output_tokens" : "completion_tokens", info.bad_usage);
    if (const json::object* details = object_member(usage, responses ? "input_tokens_details" : "prompt_tokens_details"))
        info.cached_tokens = usage_member(*details, "cached_tokens", info.bad_usage);
    if (const json::object* details = object_member(usage, responses ? "output_tokens_details" : "completion_tokens_details"))
        info.reasoning_tokens = usage_member(*details, "reasoning_tokens", info.bad_usage);
}

// The Responses event type e names, if the data is one.
responses_event responses_type(const json::object& obj) {
    const json::value* type = obj.if_contains("type");
    return type && type->is_string() ? classify_responses_event(type->get_string()) : responses_event::none;
}

chunk_info responses_chunk(const json::object& obj, responses_event e) {
    chunk_info info;
    info.kind = chunk_kind::empty;
    const json::object* response = object_member(obj, "response");
    switch (e) {
    case responses_event::text_delta:
    case responses_event::reasoning_delta: {
        const std::size_t chars = string_chars(obj, "delta");
        add_saturating(info.content_chars, chars);
        if (e == responses_event::reasoning_delta) add_saturating(info.reasoning_chars, chars);
        if (chars > 0) info.kind = chunk_kind::content;
        break;
    }
    case responses_event::terminal:
        info.kind = chunk_kind::completed;
        if (const json::object* usage = response ? object_member(*response, "usage") : nullptr) read_usage(*usage, true, info);
        break;
    case responses_event::failure: {
        // An error event carries its code itself; response.failed in response.error.
        info.kind = chunk_kind::error;
        const json::object* detail = response ? object_member(*response, "error") : &obj;
        info.error_code = std::max<std::int64_t>(detail ? int_member(*detail, "code") : -1, 0);
        break;
    }
    case responses_event::none:
    case responses_event::other: break;
    }
    return info;
}

}  // namespace

std::size_t utf8_length(std::string_view s) {
    std::size_t n = 0;
    for (const char c : s)
        n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

chunk_decoder::chunk_decoder()
    : parser_(json::storage_ptr(), [] {
          // A server that splits a multi-byte character across chunks should not
          // cost us the chunk's timing; code points are then approximate.
          json::parse_options opt;
          opt.allow_invalid_utf8 = true;
          return opt;
      }(), stack_, sizeof stack_) {}

chunk_info chunk_decoder::decode(std::string_view payload) {
    const std::string_view trimmed = trim(payload, " \t\r\n");
    if (trimmed != "[DONE]")
        if (const auto scanned = scan_chunk(trimmed)) return *scanned;
    return decode_full(payload);
}

void chunk_decoder::append_text(std::string_view payload, streamed_answer& out) {
    parser_.reset();
    resource_.emplace(arena_, sizeof arena_);
    parser_.reset(&*resource_);
    json::error_code ec;
    payload = trim(payload, " \t\r\n");
    parser_.write(payload.data(), payload.size(), ec);
    if (ec) return;
    const json::value root = parser_.release();
    const json::object* obj = root.if_object();
    if (obj && responses_type(*obj) != responses_event::none) {
        // The answer is the output text: not reasoning, a refusal or a call's arguments.
        const json::value* delta = obj->if_contains("delta");
        if (obj->at("type").get_string() == "response.output_text.delta" && delta && delta->is_string())
            out.text.append(delta->get_string());
        return;
    }
    const json::value* choices = obj ? obj->if_contains("choices") : nullptr;
    const json::array* list = choices ? choices->if_array() : nullptr;
    const json::object* choice = list && !list->empty() ? list->front().if_object() : nullptr;
    if (!choice) return;
    const json::object* delta = object_member(*choice, "delta");
    const json::value* text = delta ? delta->if_contains("content") : choice->if_contains("text");
    if (text && text->is_string()) out.text.append(text->get_string());
    if (delta) append_tool_call(*delta, out);
}

chunk_info chunk_decoder::decode_full(std::string_view payload) {
    chunk_info info;
    payload = trim(payload, " \t\r\n");
    if (payload == "[DONE]") {
        info.kind = chunk_kind::done;
        return info;
    }

    parser_.reset();  // drops what the last chunk left, while its resource still lives
    resource_.emplace(arena_, sizeof arena_);
    parser_.reset(&*resource_);
    json::error_code ec;
    parser_.write(payload.data(), payload.size(), ec);
    if (ec)
        return info;
    const json::value root = parser_.release();
    const json::object* obj = root.if_object();
    if (!obj)
        return info;
    if (const responses_event e = responses_type(*obj); e != responses_event::none) return responses_chunk(*obj, e);

    // Mid-stream errors: {"error":{"message":..,"code":..}} (OpenAI, vLLM,
    // llama.cpp), {"error":"..."} (TGI), or {"object":"error",...} (older vLLM).
    const json::value* err = member(*obj, "error");
    const json::value* type = obj->if_contains("object");
    const bool error_object = type && type->is_string() && type->get_string() == "error";
    if (err || error_object) {
        info.kind = chunk_kind::error;
        const json::object* detail = err ? err->if_object() : obj;
        info.error_code = std::max<std::int64_t>(detail ? int_member(*detail, "code") : -1, 0);
        return info;
    }

    if (const json::object* usage = object_member(*obj, "usage")) read_usage(*usage, false, info);

    const json::value* choices_value = obj->if_contains("choices");
    if (!choices_value) {
        info.kind = info.has_usage ? chunk_kind::usage_only : chunk_kind::malformed;
        return info;
    }
    const json::array* choices = choices_value->if_array();
    if (!choices)
        return info;

    bool has_content = false;
    bool has_role = false;
    for (const json::value& c : *choices) {
        const json::object* choice = c.if_object();
        if (!choice)
            return chunk_info{};
        ++info.choices;

        const json::value* finish = choice->if_contains("finish_reason");
        if (finish && !finish->is_null() && !(finish->is_string() && finish->get_string().empty()))
            info.finished = true;
        if (finish && finish->is_string() && (finish->get_string() == "tool_calls" || finish->get_string() == "function_call"))
            info.tool_call = true;

        std::size_t chars = string_chars(*choice, "text");
        const json::object* delta = object_member(*choice, "delta");
        if (info.choices == 1)
            if (const json::string* text = string_of(delta ? *delta : *choice, delta ? "content" : "text"))
                info.text = *text;
        if (delta) {
            has_role = has_role || member(*delta, "role");
            chars += string_chars(*delta, "content");
            // vLLM renamed reasoning_content to reasoning and may send both; count once.
            std::size_t reasoning = string_chars(*delta, "reasoning_content");
            if (reasoning == 0)
                reasoning = string_chars(*delta, "reasoning");
            chars += reasoning;
            add_saturating(info.reasoning_chars, reasoning);
            const json::value* tools = delta->if_contains("tool_calls");
            if (const json::array* calls = tools ? tools->if_array() : nullptr; calls && !calls->empty()) {
                // The first tool-call delta may carry only an id: it is still generated output.
                has_content = true;
                info.tool_call = true;
                for (const json::value& call : *calls)
                    if (const json::object* o = call.if_object())
                        chars += tool_call_chars(*o);
            }
            if (const json::object* legacy = object_member(*delta, "function_call")) {
                chars += string_chars(*legacy, "name") + string_chars(*legacy, "arguments");
                info.tool_call = true;
            }
        }
        has_content = has_content || chars > 0;
        add_saturating(info.content_chars, chars);
    }

    if (has_content)
        info.kind = chunk_kind::content;
    else if (has_role)
        info.kind = chunk_kind::role_only;
    else if (info.has_usage)
        info.kind = chunk_kind::usage_only;
    else
        info.kind = chunk_kind::empty;
    return info;
}

}  // namespace openloop
