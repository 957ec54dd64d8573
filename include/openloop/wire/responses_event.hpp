#pragma once
// The OpenAI Responses API's stream (POST /v1/responses): typed SSE events
// instead of chunks, each naming itself in its data's "type". What each type
// means for the clocks is decided here once, for the scan and the full parse
// of a chunk alike. Pure.

#include <cstdint>
#include <string_view>

namespace openloop {

enum class responses_event : std::uint8_t {
    none,             // not a Responses event: a chat or completions chunk
    text_delta,       // generated text in "delta": output text, a refusal, a function call's arguments
    reasoning_delta,  // reasoning text or its summary in "delta": output too, as reasoning_content is for chat
    terminal,         // response.completed / response.incomplete: the end, with response.usage
    failure,          // error / response.failed: the server's words in message / response.error.message
    other,            // created, in_progress, output_item.added, *.done, ...: nothing for the clocks
};

// type: the data's "type" member as it reads unescaped.
responses_event classify_responses_event(std::string_view type);

}  // namespace openloop
