#pragma once
// Why a request failed: the one list every layer names, from the wire that
// decides it to the results that count it.

#include <cstdint>
#include <iterator>
#include <string_view>

namespace openloop {

// Why a request failed. Stable names: they appear in results.
enum class error_class : std::uint8_t {
    none,
    connect,              // TCP connect or name resolution failed
    tls,                  // TLS handshake or certificate verification failed
    http_4xx,             // status in b
    http_5xx,             // status in b
    timeout_connect,
    timeout_first_token,  // no content chunk within the first-token timeout
    timeout_idle,         // no bytes within the idle timeout between chunks
    timeout_total,
    stream_truncated,     // the connection ended before the stream did
    bad_chunk,            // a data payload that is not a JSON chunk, or a non-streamed body that is not a whole JSON answer
    server_error,         // an error object sent inside the stream, or as a 200's JSON body
    body_too_large,       // the response exceeded --max-body
    cancelled,            // still running when the grace period after Ctrl-C ran out
    io,                   // any other socket error
    cancelled_at_end,     // still running when the drain limit after the last send ran out
    no_content,           // a 200 that is not what was asked (an SSE stream or JSON, by Content-Type), or one with no content
    bad_http,             // the response is not valid HTTP/1.1: garbage, bad chunked encoding, headers over the limit
    http_3xx,             // a redirect (status in b): openloop does not follow it, the target URL is to be fixed
    fd_limit,             // openloop ran out of file descriptors (EMFILE, ENFILE): the client's limit, not the server's
};
inline constexpr int error_class_count = 20;

constexpr std::string_view error_class_name(error_class c) {
    constexpr std::string_view names[] = {
        "none",          "connect",         "tls",           "http_4xx",      "http_5xx",
        "timeout_connect", "timeout_first_token", "timeout_idle", "timeout_total", "stream_truncated",
        "bad_chunk",     "server_error",    "body_too_large", "cancelled",     "io",
        "cancelled_at_end", "no_content",  "bad_http",      "http_3xx",      "fd_limit",
    };
    static_assert(std::size(names) == error_class_count);
    return names[static_cast<int>(c)];
}

}  // namespace openloop
