#pragma once
// What `openloop sim` does wrong on purpose: injected faults, drawn per
// request, and quirks, ways real servers deviate from the OpenAI stream shape.

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

// Per-request fault probabilities; at most one fault is drawn per request.
struct fault_config {
    double http_429 = 0;
    double http_500 = 0;
    double http_503 = 0;
    double disconnect = 0;       // connection closed mid-stream, halfway through the output
    double bad_chunk = 0;        // one malformed JSON chunk halfway through the stream
    double stall = 0;            // a pause of stall_ms between two tokens halfway through
    double slow_first_byte = 0;  // a pause of slow_first_byte_ms before the response starts
    int stall_ms = 1000;
    int slow_first_byte_ms = 1000;
    int retry_after_s = 1;       // Retry-After sent with 429

    double total() const;
};

enum class fault { none, http_429, http_500, http_503, disconnect, bad_chunk, stall, slow_first_byte };
inline constexpr int fault_kinds = 8;  // including none
std::string_view fault_name(fault f);

// The fault for the request_index-th completion request under seed: a pure
// function, so a run is reproducible and a test can predict every draw.
fault pick_fault(const fault_config& c, std::uint64_t seed, std::uint64_t request_index);

// Ways real servers deviate from the OpenAI stream shape, reproduced on
// demand so the client's handling of each is tested against a real socket.
struct sim_quirks {
    bool no_role_chunk = false;          // no role-only first chunk (TGI, some proxies)
    bool usage_in_last_chunk = false;    // usage rides on the last content chunk, no "choices": [] chunk
    bool always_usage = false;           // usage sent even when not asked for (llama.cpp)
    bool ignore_stream_options = false;  // stream_options not honoured: no usage unless always_usage
    bool no_done = false;                // the stream ends without data: [DONE]
    bool keepalive_comments = false;     // ": keep-alive" SSE comments between chunks
    bool empty_choices_chunk = false;    // an extra chunk with "choices": [] and no usage after the first
    bool error_500 = false;              // bad requests answered 500 instead of 400
    bool absurd_usage = false;           // usage.completion_tokens jumps to 2^31 - 1 after the first token
                                         // (a server's counter gone wrong): the client must not believe it
    bool html_200 = false;               // completions answered 200 with a text/html login page (a proxy's)
    bool ignore_stream = false;          // stream: true not honoured: one JSON completion, application/json
    bool no_stream_tools = false;        // a streamed request with tools answered 500 "Cannot use tools with
                                         // stream" (llama.cpp's server before it streamed tool calls)
    bool thinking_answer_chunk = false;  // the thinking's last tokens and the answer's first go out as one
                                         // chunk, reasoning_content and content in one delta (SGLang and older
                                         // vLLM when one engine step ends the thinking; --reasoning-shape
                                         // reasoning always does this)
    // Connection behaviours of real HTTP stacks:
    bool close_after_completion = false; // closed after every completion answer, Keep-Alive or not (llama.cpp)
    bool close_stale = false;            // a request arriving after > 1 s idle is dropped unanswered: the race
                                         // of a request with the server's idle close
};
// Sets the quirk NAME (as in --quirk NAME); false when unknown.
bool set_quirk(sim_quirks& q, std::string_view name);
std::string quirk_names();

}  // namespace openloop
