#pragma once
// The vocabulary of a non-streamed answer's JSON body (json_body.cpp): the
// containers whose members mean something, and the member names the scanner
// reads, a Responses answer's usage names folded onto a completion's. Pure.

#include <cstdint>
#include <string_view>

namespace openloop::json_body_keys {

// The containers whose members mean something; everything else is `other`.
// output, output_item, parts and part: a Responses answer's output items and their content (or summary) parts.
enum class where : std::uint8_t {
    other, root, usage, details, output_details, error, choices, choice, message, tool_calls, function, data,
    output, output_item, parts, part,
};

enum class key : std::uint8_t {
    other, object, error, usage, prompt_tokens, completion_tokens, details, cached_tokens, choices, message,
    content, reasoning_content, reasoning, tool_calls, function_call, function, name, arguments, text,
    finish_reason, data, code, output, summary, type, refusal, output_details, reasoning_tokens,
};

// The key k names, or other.
key key_of(std::string_view k);

}  // namespace openloop::json_body_keys
