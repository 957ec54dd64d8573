#pragma once
// How the client talks to the target: where, with which headers and TLS
// settings, and the timeouts and limits that decide a request's error class.

#include "openloop/wire/target.hpp"
#include "openloop/wire/think_tags.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

struct client_options {
    target_url target;
    std::string path;  // request path, e.g. "/v1/chat/completions"
    // The body's type: a transcription sends multipart/form-data with its boundary.
    std::string content_type = "application/json";
    bool streamed = true;  // false: each answer is one JSON body ("stream": false, embeddings)
    reasoning_parser thinking_parser = reasoning_parser::auto_detect;  // <think> tags in a stream's content
    std::vector<std::pair<std::string, std::string>> headers;  // extra headers; values may be secrets
    // The run's part of each request's traceparent (request_writer.hpp): its seed and request id prefix.
    std::uint64_t trace_key = 0;
    std::string ca_file;
    bool insecure = false;  // skip certificate and host name verification
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds first_token_timeout{0};  // 0: none
    std::chrono::milliseconds idle_timeout{0};         // between reads once streaming; 0: none
    std::chrono::milliseconds total_timeout{0};        // 0: none
    std::size_t max_body = 256u << 20;
    std::size_t spare_connections = 0;  // idle connections kept ready, so connects stay off the send path
    // A pooled connection idle longer than this is closed, never written on:
    // servers close idle keep-alive connections (uvicorn and cpp-httplib after
    // 5 s), and a request written as the server closes is lost. Spares past
    // it are replaced by fresh ones. 0: no limit.
    std::chrono::milliseconds keep_alive_idle{4'000};
};

}  // namespace openloop
