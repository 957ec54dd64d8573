#pragma once
// What the io thread tells the reporter thread: small fixed-size events pushed
// through the SPSC ring. All times are steady-clock nanoseconds
// (CLOCK_MONOTONIC, so they compare with the simulator's log on one host).

#include "openloop/base/error_class.hpp"

#include <cstdint>

namespace openloop {

enum class event_kind : std::uint8_t {
    start,        // a request was handed to the client at its intended time
    refused,      // refused by --max-inflight at its intended time, never sent
    connect,      // its connection was ready (TCP + TLS)
    sent,         // its first byte was handed to the socket
    headers,      // its response headers were parsed
    chunk,        // a read completion carried a content chunk
    done,         // its stream ended ([DONE] or body end)
    failed,       // it failed, with one error class
    retry,        // a pooled connection gave nothing back: it goes again, once, on a fresh one
    drain_over,   // the drain limit after the last send ran out: the requests still in flight are
                  // being cancelled, and their cancelled failures that follow are cancelled_at_end
    released,     // it left the client-side queue (--max-concurrency) as a slot freed; follows its
                  // start event, and schedule lag counts from here
    session_end,  // a session ended (its last turn's end, or when it stopped)
    reasoning_usage,  // the usage's reasoning tokens, just before its done event (only when the server sent them)
    media,        // what a request carried beside its text (images, audio clips, its body's bytes); follows its
                  // start event, only for a request that carried media
};

// Flags of a start or refused event.
enum event_flags : std::int64_t {
    flag_warmup = 1,  // sent, but excluded from statistics
};

// An event is built by the constructor of its kind and read by the names of
// its kind: what the three numbers v, a and b hold depends on the kind, so
// nothing outside this struct names them.
struct event {
    std::int64_t t_ns = 0;  // steady-clock nanoseconds; what moment it is, the constructor says
    std::int64_t v = 0;
    std::uint64_t request = 0;  // request index, from 0 in schedule order
    // 64-bit: token counts come from the server and may be anything up to
    // INT64_MAX; a 32-bit field once cut 4294967396 to 100. 48 bytes in all: the
    // ring holds a million of them, allocated up front.
    std::int64_t a = 0;
    std::int64_t b = 0;
    event_kind kind = event_kind::start;
    std::uint8_t flags = 0;

    // t = intended send time; flags: event_flags; model: the request's entry in the run's --model
    // list (0 when there is one).
    static constexpr event started(std::uint64_t request, std::int64_t intended_ns, std::int64_t input_tokens,
                                   std::int64_t max_tokens, std::int64_t flags, std::uint8_t model = 0) {
        return {intended_ns, flags, request, input_tokens, max_tokens, event_kind::start, model};
    }
    static constexpr event refusal(std::uint64_t request, std::int64_t intended_ns, std::int64_t input_tokens,
                                   std::int64_t max_tokens, std::int64_t flags, std::uint8_t model = 0) {
        return {intended_ns, flags, request, input_tokens, max_tokens, event_kind::refused, model};
    }
    // t = intended send time; bucket: the images' size bucket (an index into --image-size's
    // list), -1 when they were of several or from --image-dir.
    static constexpr event media_shape(std::uint64_t request, std::int64_t intended_ns, std::int64_t body_bytes,
                                       std::int32_t images, std::int32_t audios, std::int32_t bucket) {
        return {intended_ns, bucket, request, body_bytes,
                static_cast<std::int64_t>(static_cast<std::uint32_t>(images)) |
                    (static_cast<std::int64_t>(audios) << 32),
                event_kind::media, 0};
    }
    // took_ns: how long a new connection took; 0 for a pooled one.
    static constexpr event connected(std::uint64_t request, std::int64_t t_ns, std::int64_t took_ns) {
        return {t_ns, took_ns, request, 0, 0, event_kind::connect, 0};
    }
    static constexpr event release(std::uint64_t request, std::int64_t t_ns) {
        return {t_ns, 0, request, 0, 0, event_kind::released, 0};
    }
    static constexpr event sending(std::uint64_t request, std::int64_t t_ns) {
        return {t_ns, 0, request, 0, 0, event_kind::sent, 0};
    }
    static constexpr event response_headers(std::uint64_t request, std::int64_t t_ns, std::int64_t http_status) {
        return {t_ns, 0, request, http_status, 0, event_kind::headers, 0};
    }
    // tokens: what the chunk carried, -1 when unknown; flags: chunk_flags; shared_reasoning_chars:
    // of a chunk that carried thinking and answer both, the thinking's code points (0 otherwise).
    static constexpr event content(std::uint64_t request, std::int64_t t_ns, std::int64_t tokens, std::int64_t chars,
                                   std::uint8_t flags = 0, std::int64_t shared_reasoning_chars = 0) {
        return {t_ns, shared_reasoning_chars, request, tokens, chars, event_kind::chunk, flags};
    }
    // Usage figures are -1 where the server gave none; flags: done_flags.
    static constexpr event completion(std::uint64_t request, std::int64_t t_ns, std::int64_t completion_tokens,
                                      std::int64_t prompt_tokens, std::int64_t cached_tokens, std::uint8_t flags) {
        return {t_ns, cached_tokens, request, completion_tokens, prompt_tokens, event_kind::done, flags};
    }
    // A separate event, not a done field: most answers have none, and a wider event would
    // cost every slot of the ring.
    static constexpr event reasoning(std::uint64_t request, std::int64_t t_ns, std::int64_t reasoning_tokens) {
        return {t_ns, 0, request, reasoning_tokens, 0, event_kind::reasoning_usage, 0};
    }
    // http_status: 0 when none.
    static constexpr event failure(std::uint64_t request, std::int64_t t_ns, error_class why, std::int64_t http_status) {
        return {t_ns, 0, request, static_cast<std::int64_t>(why), http_status, event_kind::failed, 0};
    }
    static constexpr event retrying(std::uint64_t request, std::int64_t t_ns, error_class why) {
        return {t_ns, 0, request, static_cast<std::int64_t>(why), 0, event_kind::retry, 0};
    }
    static constexpr event drain_ended(std::int64_t t_ns) { return {t_ns, 0, 0, 0, 0, event_kind::drain_over, 0}; }
    // request: the session's first turn's index; flags: session_flags.
    static constexpr event session_ended(std::uint64_t first_request, std::int64_t end_ns, std::int64_t first_intended_ns,
                                         std::int64_t turns_completed, std::int64_t turns_planned, std::uint8_t flags) {
        return {end_ns, first_intended_ns, first_request, turns_completed, turns_planned, event_kind::session_end, flags};
    }

    // start, refused
    std::int64_t input_tokens() const { return a; }
    std::int64_t max_tokens() const { return b; }
    bool warmup() const { return (v & flag_warmup) != 0; }
    std::uint8_t model() const { return flags; }
    // media
    std::int64_t body_bytes() const { return a; }
    std::int32_t images() const { return static_cast<std::int32_t>(b & 0xffffffff); }
    std::int32_t audios() const { return static_cast<std::int32_t>(b >> 32); }
    std::int32_t bucket() const { return static_cast<std::int32_t>(v); }
    // connect
    std::int64_t connect_ns() const { return v; }
    // headers, failed (0: none)
    std::int64_t http_status() const { return kind == event_kind::failed ? b : a; }
    // chunk
    std::int64_t chunk_tokens() const { return a; }
    std::int64_t chunk_chars() const { return b; }
    std::int64_t shared_reasoning_chars() const { return v; }
    // done
    std::int64_t completion_tokens() const { return a; }
    std::int64_t prompt_tokens() const { return b; }
    std::int64_t cached_tokens() const { return v; }
    // reasoning_usage
    std::int64_t reasoning_tokens() const { return a; }
    // failed, retry: the raw value, checked by whoever turns it into a class
    std::int64_t error() const { return a; }
    // session_end
    std::int64_t turns_completed() const { return a; }
    std::int64_t turns_planned() const { return b; }
    std::int64_t first_intended_ns() const { return v; }
};

// Flags carried in a session_end event's flags.
enum session_flags : std::uint8_t {
    session_warmup = 1,  // it arrived in the warm-up: excluded from statistics
    session_failed = 2,  // a turn failed (or was refused), so the rest were not sent
    session_cut = 4,     // the run ended (its bounds, Ctrl-C) before its turns did
};

// Flags carried in a chunk event's flags.
enum chunk_flags : std::uint8_t {
    // All the chunk generated was thinking (delta.reasoning or reasoning_content, a
    // Responses reasoning delta, or content between <think> tags): no answer text, no tool call.
    chunk_reasoning = 1,
    // The chunk's thinking was read from <think> tags in its content (wire/think_tags.hpp).
    chunk_think_tags = 2,
};

// Of a chunk that carried thinking and answer both (tokens of it, chars code points, the
// thinking's reasoning_chars), the tokens that were thinking: its tokens divided as its
// characters are, rounded, each part at least one token when it has two or more (so a chunk of
// two tokens divides exactly); -1 when its tokens are unknown. The reader and the reporter
// divide by this one rule.
constexpr std::int64_t shared_reasoning_tokens(std::int64_t tokens, std::int64_t chars, std::int64_t reasoning_chars) {
    if (tokens < 1) return -1;
    if (reasoning_chars <= 0 || chars <= 0) return 0;
    if (reasoning_chars >= chars) return tokens;
    __extension__ using wide = __int128;  // tokens come from the server: up to INT64_MAX
    const wide share = (wide{tokens} * reasoning_chars * 2 + chars) / (wide{chars} * 2);
    if (tokens == 1) return static_cast<std::int64_t>(share);
    return share < 1 ? 1 : share > tokens - 1 ? tokens - 1 : static_cast<std::int64_t>(share);
}

// Flags carried in a done event's flags.
enum done_flags : std::uint8_t {
    // The server's usage could not be believed (negative, not an integer,
    // beyond int64, or a continuous count that went down): the request's
    // output tokens are counted by content chunks, and it is reported.
    done_bad_usage = 1,
    // The answer was one JSON body, not a stream (--no-stream, embeddings): no
    // chunk event came, so TTFT, TPOT and ITL are not defined; E2E ends here.
    done_unstreamed = 2,
    // The answer was a tool call (a tool_calls delta, or finish_reason tool_calls).
    done_tool_call = 4,
};

}  // namespace openloop
