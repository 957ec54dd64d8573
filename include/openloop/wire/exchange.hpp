#pragma once
// One request on one connection, as a connection's worker runs it
// (connection_worker.cpp): what it produced, the deadline in force at each
// stage (a deadline_sweep enforces it) and how a failed socket operation is
// classified. What the response means is the reader's business.

#include "openloop/measure/event.hpp"

#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace openloop {

// What one exchange produced, beyond the events already pushed.
struct exchange_result {
    error_class failure = error_class::none;
    int status = 0;
    bool reusable = false;
    bool nothing_received = false;  // the connection died before any response byte: safe to retry
    std::string message;            // on failure: what the server or the socket said (error_text); may be empty
    std::int64_t answered_ns = 0;   // completed: the read that completed the answer (steady ns)
    std::int64_t answer_tokens = -1;  // completed: its answer's tokens as the usage counted them, -1 unknown
};

// The most a response's status line and headers may take: far above what
// real servers send (a few hundred bytes), small enough that an endless
// header block fails fast as bad_http. Beast's default is 8 KiB.
inline constexpr std::uint32_t response_header_limit = 64 * 1024;

// Timeouts in force for one request: which one fires decides the error class.
struct deadlines {
    using time_point = std::chrono::steady_clock::time_point;
    std::optional<time_point> first_token, total;
    std::chrono::milliseconds idle{0};

    // The deadline for the next read from now and the class it fails in.
    std::pair<std::optional<time_point>, error_class> next(bool streaming, time_point now) const;
};

// How long the end of a body may lag its stream's [DONE]. A server sends it
// right behind (the last chunk of a chunked body, or nothing more with an
// exact Content-Length); one whose Content-Length promised more, or that never
// ends its chunked body, would otherwise hold a completed request in flight
// until a timeout or the drain. Past it the request completes and its
// connection, its framing not trusted, is closed.
inline constexpr std::chrono::milliseconds body_end_after_done{500};

// The error class of a failed socket operation; timeout_cls is what the
// deadline armed for it means. Anything failing once cancelled is cancelled.
error_class classify(const boost::system::error_code& ec, error_class timeout_cls, bool cancelled);

// What plain TCP reads into: one buffer for every connection of the io
// thread, since a read waits for readiness first and holds no buffer while
// it waits; what a response leaves unparsed (a header cut short) moves to
// its connection's own buffer. 16 KiB, not 64: a read is parsed before the
// io thread does anything else, and 64 KiB of a fast server's stream (some 250
// chunks, 150 us) held the scheduler long enough to stretch the schedule's
// short gaps at 2,500 req/s of 256-chunk streams; 16 KiB costs no more CPU.
inline constexpr std::size_t shared_read_bytes = 16 * 1024;
// What one TLS read may decrypt into the connection's buffer.
inline constexpr std::size_t tls_read_bytes = 8 * 1024;

}  // namespace openloop
