#pragma once
// What the io thread tells the reporter thread: small fixed-size events pushed
// through the SPSC ring. All times are steady-clock nanoseconds
// (CLOCK_MONOTONIC, so they compare with the simulator's log on one host).

#include "openloop/base/error_class.hpp"

#include <cstdint>

namespace openloop {

enum class event_kind : std::uint8_t {
    start,    // t = intended send time; a = input tokens; b = max_tokens; v = event_flags
    refused,  // t = intended send time; refused by --max-inflight, never sent; v = event_flags
    connect,  // t = connection ready (TCP + TLS); v = time it took, ns (only for a new connection)
    sent,     // t = first byte of the request handed to the socket
    headers,  // t = response headers parsed; a = HTTP status
    chunk,    // t = read completion that carried a content chunk; a = tokens it carried (-1: unknown);
              //     b = characters of generated text
    done,     // t = end of stream ([DONE] or body end); a = completion tokens from usage (-1: none);
              //     b = prompt tokens from usage (-1: none); v = cached prompt tokens (-1: none);
              //     flags = done_flags
    failed,   // t = when it failed; a = error_class; b = HTTP status (0 if none)
    retry,    // t = when a pooled connection gave nothing back; a = error_class it ended in.
              //     The request goes again, once, on a fresh connection (a connect event follows)
    drain_over,  // t = when the drain limit after the last send ran out: the requests still in
                 //     flight are being cancelled, and their cancelled failures that follow in
                 //     the ring are cancelled_at_end
    released,  // t = when it left the client-side queue (--max-concurrency): a request ended and
               //     freed its slot. Follows its start event; schedule lag counts from here
    session_end,  // t = when a session ended (its last turn's end, or when it stopped); request = its
                  //     first turn's index; a = turns completed; b = turns it was to have; v = its first
                  //     turn's intended time; flags = session_flags
};

// Flags carried in a start/refused event's v.
enum event_flags : std::int64_t {
    flag_warmup = 1,  // sent, but excluded from statistics
};

struct event {
    std::int64_t t_ns = 0;
    std::int64_t v = 0;
    std::uint64_t request = 0;  // request index, from 0 in schedule order
    // 64-bit: token counts come from the server and may be anything up to
    // INT64_MAX; a 32-bit field once cut 4294967396 to 100. 48 bytes in all.
    std::int64_t a = 0;
    std::int64_t b = 0;
    event_kind kind = event_kind::start;
    std::uint8_t flags = 0;  // done: done_flags
};

// Flags carried in a session_end event's flags.
enum session_flags : std::uint8_t {
    session_warmup = 1,  // it arrived in the warm-up: excluded from statistics
    session_failed = 2,  // a turn failed (or was refused), so the rest were not sent
    session_cut = 4,     // the run ended (its bounds, Ctrl-C) before its turns did
};

// Flags carried in a done event's flags.
enum done_flags : std::uint8_t {
    // The server's usage could not be believed (negative, not an integer,
    // beyond int64, or a continuous count that went down): the request's
    // output tokens are counted by content chunks, and it is reported.
    done_bad_usage = 1,
    // The answer was one JSON body, not a stream (--no-stream, embeddings): no
    // chunk event came, so TTFT, TPOT and ITL are not defined; E2E ends here.
    done_unstreamed = 2,
};

}  // namespace openloop
