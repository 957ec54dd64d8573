#pragma once
// The bytes of a request, prepared ahead of its send time so that nothing on
// the send path formats text.

#include "openloop/wire/client_options.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct streamed_answer;  // chunk.hpp

// A shared payload (an image's data URL, an audio clip's base64, encoded once
// before the run) that goes on the wire at `at` bytes into a request's
// bytes: written from where it lies, never copied into the request.
struct body_splice {
    std::size_t at = 0;
    std::string_view payload;
};

// A request prepared ahead of its send time: the complete HTTP/1.1 bytes,
// the first `head` of them the request line and headers, with the splices'
// payloads (in order of `at`) written between them.
struct prepared_request {
    std::string bytes;
    std::size_t head = 0;
    std::vector<body_splice> splices;
    int input_tokens = 0;
    int max_tokens = 0;
    // A session's turn: where its answer goes (response_reader::start).
    streamed_answer* answer = nullptr;
    std::uint8_t model = 0;     // its entry in the run's --model list (the start event carries it)
    std::uint16_t images = 0;   // media it carries (the media event), 0: none
    std::uint16_t audios = 0;
    std::int16_t bucket = -1;   // its images' size bucket, -1: none or several
};
// Writes the request into out (cleared first; its memory is reused), with
// x-request-id prefix followed by index, a W3C traceparent made of the index
// and o.trace_key (trace id: the index in 16 hex digits, then 16 of a hash;
// sampled), and for a session's turn (session >= 0) X-Session-ID prefix
// "session-" session, which routers use for affinity. Content-Length counts
// spliced_bytes of payloads written between the body's pieces. Returns the
// size of the request line and headers.
std::size_t write_http_request(std::string& out, const client_options& o, std::string_view prefix, std::uint64_t index,
                               std::string_view json_body, std::int64_t session = -1, std::size_t spliced_bytes = 0);
// The body's whole length on the wire, its splices included.
std::size_t body_size(const prepared_request& r);

// A body at least this large goes in a write of its own, after the headers
// (exchange.hpp): a 10k-token prompt takes ~0.05 ms to write to loopback.
inline constexpr std::size_t separate_body_bytes = 16 * 1024;

}  // namespace openloop
