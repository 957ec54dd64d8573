#include "json_body_keys.hpp"

namespace openloop::json_body_keys {

key key_of(std::string_view k) {
    struct entry {
        std::string_view name;
        key id;
    };
    static constexpr entry keys[] = {
        {"object", key::object},
        {"error", key::error},
        {"usage", key::usage},
        {"prompt_tokens", key::prompt_tokens},
        {"completion_tokens", key::completion_tokens},
        {"prompt_tokens_details", key::details},
        {"cached_tokens", key::cached_tokens},
        {"completion_tokens_details", key::output_details},
        {"reasoning_tokens", key::reasoning_tokens},
        {"choices", key::choices},
        {"message", key::message},
        {"content", key::content},
        {"reasoning_content", key::reasoning_content},
        {"reasoning", key::reasoning},
        {"tool_calls", key::tool_calls},
        {"function_call", key::function_call},
        {"function", key::function},
        {"name", key::name},
        {"arguments", key::arguments},
        {"text", key::text},
        {"finish_reason", key::finish_reason},
        {"data", key::data},
        {"code", key::code},
        {"output", key::output},
        {"summary", key::summary},
        {"type", key::type},
        {"refusal", key::refusal},
        // A Responses answer's usage names its figures so.
        {"input_tokens", key::prompt_tokens},
        {"output_tokens", key::completion_tokens},
        {"input_tokens_details", key::details},
        {"output_tokens_details", key::output_details},
    };
    for (const entry& e : keys)
        if (e.name == k) return e.id;
    return key::other;
}

}  // namespace openloop::json_body_keys
