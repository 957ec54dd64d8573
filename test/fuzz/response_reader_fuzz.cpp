// The response reader on arbitrary bodies, statuses, transport failures and
// slicings, in stream and JSON mode. Input: a status byte, a transport byte
// (its bit 6 picks JSON mode), a split byte, then the body. In JSON mode no
// chunk event ever comes and the done event says the answer was not streamed.
// Invariants: the response ends in exactly one outcome once the body ends or
// the transport fails, and nothing is emitted after it; a done event comes
// exactly when the outcome is success, once, last, a reasoning_usage event
// (the usage's reasoning tokens) only right before it; events carry the request
// and sane counts; any slicing gives what byte-by-byte feeding gives, with
// each event timed by the read that carried its last byte; a reader reused
// for the next request behaves as a new one.

#include "fuzz_input.hpp"

#include "openloop/wire/response_reader.hpp"

#include <algorithm>
#include <array>
#include <tuple>
#include <vector>

namespace {

using openloop::error_class;
using openloop::event;
using openloop::event_kind;

constexpr std::uint64_t request_id = 7;

int pick_status(std::uint8_t b) {
    constexpr std::array<int, 8> others{404, 500, 429, 401, 503, 204, 301, 100};
    return b < 160 ? 200 : others[b % others.size()];
}

// How the transport may end a read; none most of the time.
error_class pick_transport(std::uint8_t b) {
    constexpr std::array<error_class, 8> failures{
        error_class::timeout_first_token, error_class::timeout_idle, error_class::timeout_total,
        error_class::stream_truncated,    error_class::body_too_large, error_class::cancelled,
        error_class::io,                  error_class::cancelled_at_end};
    return b < 128 ? error_class::none : failures[b % failures.size()];
}

// The response's Content-Type, from the status byte's low bits: an SSE type
// mostly (seeds keep theirs), sometimes one a stream must not be read from.
std::string_view pick_content_type(std::uint8_t b, openloop::response_mode mode) {
    constexpr std::array<std::string_view, 8> stream_types{
        "text/event-stream", "text/event-stream", "text/event-stream", "Text/Event-Stream; charset=utf-8",
        "",                  "text/html",         "application/json",  "text/event-streams"};
    constexpr std::array<std::string_view, 8> json_types{
        "application/json", "application/json",  "Application/JSON; charset=utf-8", "",
        "text/event-stream", "text/html",        "application/problem+json",        "application/jsonl"};
    return (mode == openloop::response_mode::json ? json_types : stream_types)[b % stream_types.size()];
}

struct fed {
    std::vector<event> events;
    error_class outcome = error_class::none;
    bool at_body_end = false;
};

bool same_event(const event& x, const event& y) {
    return std::tie(x.t_ns, x.v, x.request, x.a, x.b, x.kind, x.flags) ==
           std::tie(y.t_ns, y.v, y.request, y.a, y.b, y.kind, y.flags);
}

// Headers at t = 0, piece j at t = j + 1; the last piece ends the body unless
// the transport fails, which one more empty read then reports.
fed feed(openloop::response_reader& reader, openloop::response_mode mode, int status, std::string_view content_type,
         std::string_view body, const std::vector<std::size_t>& starts, error_class transport) {
    reader.start(request_id, mode);
    fed out;
    bool finished_seen = false;
    const auto emit = [&](const event& e) {
        FUZZ_CHECK(!finished_seen);
        FUZZ_CHECK(e.request == request_id);
        out.events.push_back(e);
    };
    reader.headers(status, content_type, 0, emit);
    FUZZ_CHECK(reader.status() == status);
    const auto read = [&](openloop::read_completion r) {
        reader.read(r, emit);
        finished_seen = reader.finished();
    };
    for (std::size_t j = 0; j < starts.size(); ++j) {
        const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : body.size();
        openloop::read_completion r;
        r.bytes = body.substr(starts[j], end - starts[j]);
        r.t_ns = static_cast<std::int64_t>(j + 1);
        r.body_complete = transport == error_class::none && j + 1 == starts.size();
        read(r);
    }
    if (transport != error_class::none) {
        openloop::read_completion r;
        r.t_ns = static_cast<std::int64_t>(starts.size() + 1);
        r.error = transport;
        read(r);
    }
    FUZZ_CHECK(reader.finished());
    out.outcome = reader.outcome();
    out.at_body_end = reader.ended_at_body_end();

    // A finished reader ignores further reads.
    openloop::read_completion late;
    late.bytes = "data: [DONE]\n\n";
    late.body_complete = true;
    reader.read(late, emit);
    FUZZ_CHECK(reader.outcome() == out.outcome);

    const auto dones = std::count_if(out.events.begin(), out.events.end(),
                                     [](const event& e) { return e.kind == event_kind::done; });
    FUZZ_CHECK(dones == (out.outcome == error_class::none ? 1 : 0));
    if (dones == 1) FUZZ_CHECK(out.events.back().kind == event_kind::done);
    if (out.outcome == error_class::none) FUZZ_CHECK(status == 200);
    FUZZ_CHECK(out.events.front().kind == event_kind::headers && out.events.front().a == status);
    std::int64_t last_t = 0;
    for (std::size_t i = 1; i < out.events.size(); ++i) {
        const event& e = out.events[i];
        FUZZ_CHECK(e.kind == event_kind::chunk || e.kind == event_kind::done || e.kind == event_kind::reasoning_usage);
        FUZZ_CHECK(e.t_ns >= last_t);
        last_t = e.t_ns;
        if (e.kind == event_kind::reasoning_usage) {
            // The usage's reasoning tokens come right before the done event they belong to, at its time.
            FUZZ_CHECK(e.reasoning_tokens() >= 0);
            FUZZ_CHECK(i + 1 < out.events.size() && out.events[i + 1].kind == event_kind::done &&
                       out.events[i + 1].t_ns == e.t_ns);
        } else if (mode == openloop::response_mode::json) {
            FUZZ_CHECK(e.kind == event_kind::done && (e.flags & openloop::done_unstreamed) != 0);
            FUZZ_CHECK(e.a >= -1 && e.b >= -1 && e.v >= -1);
        } else if (e.kind == event_kind::chunk) {
            FUZZ_CHECK(e.a == -1 || e.a > 0);  // tokens: unknown, or what the usage delta says
            FUZZ_CHECK(e.b >= 0 && static_cast<std::size_t>(e.b) <= body.size());
        } else {
            FUZZ_CHECK(e.a >= -1 && e.b >= -1 && e.v >= -1);
        }
    }
    return out;
}

// Byte by byte, an event's time names the byte that completed it (t - 1);
// under a slicing it must be the read that carried that byte.
fed expected_for(fed bytewise, const std::vector<std::size_t>& starts, std::size_t size) {
    for (event& e : bytewise.events) {
        if (e.t_ns == 0) continue;
        if (e.t_ns > static_cast<std::int64_t>(size)) {
            e.t_ns = static_cast<std::int64_t>(starts.size() + 1);
            continue;
        }
        const auto byte = static_cast<std::size_t>(e.t_ns - 1);
        e.t_ns = std::upper_bound(starts.begin(), starts.end(), byte) - starts.begin();
    }
    return bytewise;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    const std::uint8_t status_byte = in.byte();
    const int status = pick_status(status_byte);
    const std::uint8_t transport_byte = in.byte();
    const auto mode = (transport_byte & 0x40) != 0 ? openloop::response_mode::json : openloop::response_mode::stream;
    const std::string_view content_type = pick_content_type(status_byte, mode);
    const error_class transport = pick_transport(transport_byte);
    const std::uint8_t split = in.byte();
    const std::string_view body = in.rest();

    openloop::chunk_decoder decoder;
    openloop::response_reader reader(decoder);
    const auto starts = fuzz::split_starts(split, body.size());
    const fed bytewise = feed(reader, mode, status, content_type, body, fuzz::split_starts(0, body.size()), transport);
    const fed sliced = feed(reader, mode, status, content_type, body, starts, transport);
    // An empty body is one empty read under every split.
    const fed want = body.empty() ? bytewise : expected_for(bytewise, starts, body.size());
    FUZZ_CHECK(sliced.outcome == want.outcome);
    FUZZ_CHECK(sliced.at_body_end == want.at_body_end);
    FUZZ_CHECK(sliced.events.size() == want.events.size());
    for (std::size_t i = 0; i < want.events.size(); ++i) FUZZ_CHECK(same_event(sliced.events[i], want.events[i]));
    return 0;
}
