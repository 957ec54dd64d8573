// The SSE parser on arbitrary bytes in arbitrary slices. Input: one byte
// choosing max_event_bytes (the default, or 8..1024 to reach the overflow
// path), one byte choosing the split, then the body.
// Invariants: slicing changes nothing (events, comments, error, pending
// state); no event is larger than its limit or than the bytes fed so far; the
// events' data together never exceed the bytes fed; feed() and events()
// agree; after an error nothing more is dispatched; reset() forgets.

#include "fuzz_input.hpp"

#include "openloop/wire/sse.hpp"

#include <optional>
#include <string>

namespace {

using openloop::sse_error;
using openloop::sse_event;
using openloop::sse_parser;

struct seen {
    std::string events;  // each event's type, id and data, length-prefixed
    std::size_t count = 0;
    std::size_t comments = 0;
    bool in_event = false;
    sse_error error = sse_error::none;
    std::optional<std::uint64_t> retry_ms;

    friend bool operator==(const seen&, const seen&) = default;
};

void append(std::string& out, std::string_view s) {
    out += std::to_string(s.size());
    out += ':';
    out += s;
}

seen run(sse_parser& p, std::string_view body, const std::vector<std::size_t>& starts) {
    seen out;
    std::size_t fed = 0, data_bytes = 0;
    for (std::size_t j = 0; j < starts.size(); ++j) {
        const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : body.size();
        const std::string_view piece = body.substr(starts[j], end - starts[j]);
        fed += piece.size();
        const bool failed_before = p.error() != sse_error::none;
        const std::size_t n = p.feed(piece, [&](const sse_event& e) {
            FUZZ_CHECK(e.data.size() <= p.max_event_bytes());
            FUZZ_CHECK(e.data.size() <= fed);
            data_bytes += e.data.size();
            append(out.events, e.type);
            append(out.events, e.id);
            append(out.events, e.data);
        });
        FUZZ_CHECK(!failed_before || n == 0);
        out.count += n;
        FUZZ_CHECK(data_bytes <= fed);
    }
    FUZZ_CHECK(out.count == p.events());
    out.comments = p.comments();
    out.in_event = p.in_event();
    out.error = p.error();
    out.retry_ms = p.retry_ms();
    return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    const std::uint8_t limit = in.byte();
    const std::uint8_t split = in.byte();
    const std::string_view body = in.rest();
    const std::size_t max_bytes = limit < 128 ? sse_parser::default_max_event_bytes : (limit - 127u) * 8u;

    sse_parser whole;
    whole.set_max_event_bytes(max_bytes);
    const seen reference = run(whole, body, {0});

    // A parser that has already seen this stream, reset, must behave as new.
    sse_parser sliced;
    sliced.set_max_event_bytes(max_bytes);
    const auto starts = fuzz::split_starts(split, body.size());
    run(sliced, body, starts);
    sliced.reset();
    FUZZ_CHECK(sliced.max_event_bytes() == max_bytes);
    FUZZ_CHECK(run(sliced, body, starts) == reference);
    return 0;
}
