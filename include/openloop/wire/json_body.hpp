#pragma once
// A non-streamed answer's JSON body (chat.completion, text_completion, a
// Responses API response, an embeddings list, an error object), scanned as its bytes arrive: a SAX pass
// that keeps only the figures the clocks and counts need, so a body of any
// size is neither held nor parsed into a value, and a scanner reused request
// after request allocates nothing once its nesting stack has grown. Pure.

#include "openloop/wire/chunk.hpp"

#include <cstdint>
#include <memory>
#include <string_view>

namespace openloop {

struct json_body_info {
    // content: a completion whose choices carry generated text or a tool
    // call; usage_only / empty: a completion (or embeddings list) without
    // any; error: an error object; malformed: not JSON, not an object, or a
    // choices / data member of the wrong shape. The usage figures, finished,
    // choices and error_code read as in a stream's chunk.
    chunk_info info;
    bool has_choices = false;  // a "choices" array: a completion
    // An "output" array: a Responses answer, its items' text read as a
    // completion's choices (reasoning items as reasoning), its usage's
    // input/output_tokens as prompt/completion_tokens.
    bool has_output = false;
    bool has_data = false;     // a "data" array: an embeddings list
    bool has_text = false;     // a top-level "text" string: a transcription (vLLM's TranscriptionResponse)
    std::uint32_t data_items = 0;
};

class json_body_scanner {
public:
    json_body_scanner();
    ~json_body_scanner();
    json_body_scanner(const json_body_scanner&) = delete;
    json_body_scanner& operator=(const json_body_scanner&) = delete;

    void reset();
    // The next bytes of the body; false once they cannot be a JSON document
    // (and from then on).
    bool feed(std::string_view bytes);
    // The body ended: what it was. A document cut short is malformed.
    json_body_info finish();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace openloop
