#pragma once
// The pieces of a well-formed OpenAI chat stream, for the hostile server's
// scripts to assemble, break and repeat. Chunks are what vLLM sends, trimmed.

#include "hostile_server.hpp"

#include <string>
#include <string_view>

namespace hostile {

inline constexpr std::string_view done_event = "data: [DONE]\n\n";

// A usage object with the given completion_tokens, written as-is (so that
// "1.5" or "-5" reach the client exactly as a broken server sends them).
inline std::string usage(std::string_view completion_tokens) {
    return R"({"prompt_tokens":16,"completion_tokens":)" + std::string(completion_tokens) + "}";
}

inline std::string event(std::string_view json) { return "data: " + std::string(json) + "\n\n"; }

inline std::string role_event() {
    return event(R"({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]})");
}

// A content chunk carrying one word; with usage_json, usage rides on it
// (vLLM's continuous_usage_stats).
inline std::string content_event(std::string_view usage_json = {}) {
    std::string json = R"({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"word "},"finish_reason":null}])";
    if (!usage_json.empty()) json += R"(,"usage":)" + std::string(usage_json);
    return event(json + "}");
}

inline std::string finish_event() {
    return event(R"({"object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]})");
}

inline std::string usage_event(std::string_view usage_json) {
    return event(R"({"object":"chat.completion.chunk","choices":[],"usage":)" + std::string(usage_json) + "}");
}

// A complete, clean stream: role, `tokens` content chunks, finish_reason,
// usage, [DONE].
inline std::string clean_stream(int tokens) {
    std::string s = role_event();
    for (int i = 0; i < tokens; ++i) s += content_event();
    return s + finish_event() + usage_event(usage(std::to_string(tokens))) + std::string(done_event);
}

inline constexpr std::string_view sse_chunked_head =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";

inline std::string head_with_length(std::string_view status_line, std::string_view type, std::size_t length) {
    return std::string(status_line) + "\r\nContent-Type: " + std::string(type) +
           "\r\nContent-Length: " + std::to_string(length) + "\r\n\r\n";
}

// One whole response: an SSE head, the body in one chunk, the last chunk.
inline bool send_sse_chunked(connection& c, std::string_view body) {
    return c.send(sse_chunked_head) && c.send_chunk(body) && c.send("0\r\n\r\n");
}

}  // namespace hostile
