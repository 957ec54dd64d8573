#pragma once
// Decodes one SSE event payload of an OpenAI-compatible streaming response
// (chat.completion.chunk, text_completion, or a Responses API event, told
// apart by its "type": responses_event.hpp) into a small POD, so that the
// hot path keeps numbers, not strings. Real servers (vLLM, SGLang, llama.cpp,
// TGI, TensorRT-LLM, hosted APIs) deviate from OpenAI in where usage appears,
// whether a role-only first chunk is sent, and how errors look mid-stream; the
// decoder accepts all of them.

#include "openloop/load/tool_calls.hpp"

#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parser.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// What a chunk means for the latency clocks. Only `content` moves TTFT/ITL.
enum class chunk_kind : std::uint8_t {
    content,     // at least one choice carries generated text or a tool call
    role_only,   // a choice announces the role but carries no text
    usage_only,  // no generated text, but a usage object (the final usage chunk)
    empty,       // a well-formed chunk carrying nothing of the above (e.g. finish_reason only)
    done,        // the `[DONE]` sentinel
    completed,   // a Responses stream's end (response.completed / incomplete), with its usage if given
    error,       // an error object sent in the stream
    malformed,   // not JSON, not an object, or not shaped like a chunk
};

struct chunk_info {
    chunk_kind kind = chunk_kind::malformed;
    // Code points of generated text over all choices: delta.content,
    // delta.reasoning_content / delta.reasoning, tool call names and arguments,
    // or text (completions); a Responses delta event's delta. Saturates.
    std::uint32_t content_chars = 0;
    // The part of content_chars that is reasoning text.
    std::uint32_t reasoning_chars = 0;
    // The first choice's generated text (delta.content; text of a completion) as it lies in
    // the payload, JSON-escaped when text_escaped (the scan), else decoded (the full parse,
    // whose memory lasts until the decoder's next call); empty without one. What a server
    // without a reasoning parser puts its <think> tags in (think_tags.hpp).
    std::string_view text;
    bool text_escaped = false;
    std::uint32_t choices = 0;  // elements of the choices array
    bool finished = false;      // some choice has a finish_reason
    // A choice carries a tool call (a tool_calls or function_call delta), or
    // finished with finish_reason "tool_calls" or "function_call".
    bool tool_call = false;
    // Usage, when the chunk has a usage object. Servers send it on the final
    // chunk, inside the last content chunk, or (vLLM continuous_usage_stats) on
    // every chunk, with completion_tokens cumulative. -1 means not given.
    bool has_usage = false;
    std::int64_t prompt_tokens = -1;
    std::int64_t completion_tokens = -1;
    std::int64_t cached_tokens = -1;  // usage.prompt_tokens_details.cached_tokens
    // usage.completion_tokens_details.reasoning_tokens: the part of
    // completion_tokens spent thinking (OpenAI, vLLM with a reasoning parser).
    std::int64_t reasoning_tokens = -1;
    // A Responses stream's usage is response.usage of its completed event:
    // input_tokens, output_tokens, input_tokens_details.cached_tokens and
    // output_tokens_details.reasoning_tokens read as the four figures above.
    // Some figure above was present but negative, not an integer (12.0 is
    // 12), not a number, or beyond int64; that figure reads -1.
    bool bad_usage = false;
    // For kind == error: the error's integer code (an HTTP status for vLLM and
    // llama.cpp); 0 when absent or not an integer (OpenAI sends strings).
    std::int64_t error_code = 0;
};

// Adds n to a chunk_info count, which stays at its maximum rather than wrap.
inline void add_saturating(std::uint32_t& total, std::size_t n) {
    constexpr std::size_t max = std::numeric_limits<std::uint32_t>::max();
    total = static_cast<std::uint32_t>(std::min<std::size_t>(max, std::size_t{total} + std::min(n, max)));
}

// A session's answer as it streamed, to send back in its history: the first
// choice's text, and the tool calls it made, each by its index (a model may
// call several at once; a session answers every one).
struct streamed_answer {
    std::string text;
    bool tool_call = false;
    tool_call_list calls;
    // Empties it, keeping the strings' memory for the next answer.
    void clear() {
        text.clear();
        tool_call = false;
        calls.clear();
    }
};

// Number of code points in valid UTF-8 (bytes that are not continuation bytes).
std::size_t utf8_length(std::string_view s);

// One decoder can serve every stream on a thread: decode() keeps nothing
// between calls but reusable memory, so steady-state decoding does not allocate.
class chunk_decoder {
public:
    chunk_decoder();
    chunk_decoder(const chunk_decoder&) = delete;
    chunk_decoder& operator=(const chunk_decoder&) = delete;

    // The scan of the common shapes (chunk_scan.hpp), else the full parse.
    chunk_info decode(std::string_view payload);
    // Always the full parse into a JSON value: the reference the scan is checked against.
    chunk_info decode_full(std::string_view payload);
    // Appends what the first choice generated to out: its text (delta.content
    // for chat, text for completions, a Responses output_text delta) and each
    // tool call's id, name and argument pieces (delta.tool_calls, by index): a
    // multi-turn session sends it back as the assistant's answer. The full
    // parse, so only sessions pay for it.
    void append_text(std::string_view payload, streamed_answer& out);

private:
    // Sized for typical chunks (a few hundred bytes of JSON); larger ones fall
    // back to the heap for that call only.
    alignas(std::max_align_t) unsigned char arena_[16 * 1024];
    alignas(std::max_align_t) unsigned char stack_[4 * 1024];
    // Made anew for each chunk: Boost 1.81's release() keeps the doubled size
    // of the next heap block, so each chunk too large for the arena would make
    // the next one's block twice as large, up to a 2 GiB allocation and beyond.
    std::optional<boost::json::monotonic_resource> resource_;
    boost::json::parser parser_;
};

}  // namespace openloop
