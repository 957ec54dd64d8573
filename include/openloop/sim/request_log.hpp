#pragma once
// `openloop sim --log FILE`: one JSONL line per completion request with the
// server's own steady-clock timestamps, so a test (or a user) can put the
// client's view of a request next to the server's.

#include "openloop/sim/faults.hpp"
#include "openloop/sim/media_parts.hpp"

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct log_record {
    std::string request_id;  // the client's x-request-id
    std::string session_id;  // its X-Session-ID; empty: none
    std::string traceparent; // its W3C traceparent; empty: none
    std::string model;       // the model (base or LoRA adapter) it was served by; empty: rejected before
    std::string_view endpoint;
    bool stream = false;
    std::int64_t first_byte_ns = 0;  // the request's first bytes read: when it reached the server
    std::int64_t arrival_ns = 0;     // the whole request read
    std::size_t body_bytes = 0;      // its body's length (Content-Length)
    std::int64_t first_token_ns = -1;
    std::int64_t first_answer_ns = -1;  // the first chunk of the answer (text or tool call), after any thinking
    std::int64_t last_token_ns = -1;
    std::int64_t end_ns = -1;
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int cached_tokens = 0;
    int reasoning_tokens = 0;  // of completion_tokens, those sent thinking
    media_count media;         // of prompt_tokens, the images' and audio's (logged when there are any)
    bool tool_call = false;    // the answer was a tool call
    int status = 200;
    fault injected = fault::none;
    std::string_view outcome = "ok";  // ok, rejected, fault or client_closed
    // --log-content: the request body (its "messages" or "prompt", and "tools", are logged) and
    // what was generated: the answer's text, the thinking, the tool calls.
    bool content = false;
    std::string_view body;
    std::string output;
    std::string reasoning;
    struct call {
        std::string id, name, arguments;
    };
    std::vector<call> tool_calls;
};

class sim_request_log {
public:
    // An empty path logs nothing. Throws std::runtime_error when the file cannot be opened.
    explicit sim_request_log(const std::string& path);
    void write(const log_record& r);
    void flush();

private:
    std::ofstream out_;
};

}  // namespace openloop
