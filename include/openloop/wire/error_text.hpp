#pragma once
// What a failed response said, as one short line for the error messages of
// the results: the message of a JSON error body (OpenAI's error.message,
// FastAPI's detail, a bare message), else the first bytes of the body, and
// for a 200 that was not a stream, what it was instead; for a redirect, where
// it pointed. Pure; called on the
// error path only, so it may allocate.

#include "openloop/measure/event.hpp"

#include <cstddef>
#include <string>
#include <string_view>

namespace openloop {

// Bytes of a body that is not JSON shown as its message.
inline constexpr std::size_t body_snippet_bytes = 200;

// error.message (or error as a string), message, or detail of a JSON object
// body; otherwise the first body_snippet_bytes of the body. One printable
// line; empty for an empty body.
std::string body_message(std::string_view body);

// The message of a response that failed in cls, from the Content-Type of a
// 200 that was not what the request asked for (empty otherwise) and the first
// bytes of its body; streamed: the request asked for an SSE stream, not one
// JSON body.
std::string response_failure_message(error_class cls, std::string_view content_type, std::string_view body,
                                     bool streamed = true);

// An SSE event (or one line of it) past limit bytes: what the stream sent
// and the bound it passed, in MiB, as the docs name it.
std::string oversized_event_message(std::size_t limit);

// A redirect's message: where it pointed (its Location, empty when it sent
// none) and that openloop does not follow it.
std::string redirect_message(std::string_view location);

}  // namespace openloop
