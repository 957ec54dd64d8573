#pragma once
// Feeds a response_reader recorded streams in every kind of split and
// compares what comes out: the events, with times mapped to the read that
// carried each event's last byte, and the outcome. Include after
// <boost/test/unit_test.hpp>.

#include "openloop/wire/response_reader.hpp"
#include "printing.hpp"

#include <algorithm>
#include <ostream>
#include <random>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace reader_feed {

using namespace openloop;

inline constexpr error_class none = error_class::none;
inline constexpr std::string_view sse_type = "text/event-stream";

// One event as a line, so that a mismatch reads as what it is.
inline std::string show(const event& e) {
    static constexpr const char* kinds[] = {"start",       "refused",  "connect",    "sent",    "headers",
                                            "chunk",       "done",     "failed",     "retry",   "drain_over",
                                            "released",    "session_end", "reasoning"};
    std::ostringstream os;
    os << kinds[static_cast<int>(e.kind)] << " t=" << e.t_ns << " a=" << e.a << " b=" << e.b << " v=" << e.v
       << " req=" << e.request;
    // What only a thinking model's or a tool call's stream sets, so other lines read as they did.
    if (e.kind == event_kind::chunk && (e.flags & chunk_reasoning) != 0) os << " thinking";
    if (e.kind == event_kind::chunk && (e.flags & chunk_think_tags) != 0) os << " tags";
    if (e.kind == event_kind::done && (e.flags & done_tool_call) != 0) os << " tool_call";
    return os.str();
}

struct fed {
    std::vector<event> events;
    error_class outcome = none;
    bool finished = false;
    bool at_body_end = false;
    int status = 0;
    std::string kept;  // kept_body()
    std::int64_t answered = 0;  // answered_ns()
};

inline std::ostream& operator<<(std::ostream& os, const fed& f) {
    os << "{outcome " << f.outcome << (f.finished ? "" : " unfinished") << (f.at_body_end ? " at body end" : "");
    for (const auto& e : f.events) os << " | " << show(e);
    return os << '}';
}

inline bool same(const fed& x, const fed& y) {
    if (x.outcome != y.outcome || x.finished != y.finished || x.at_body_end != y.at_body_end || x.status != y.status ||
        x.kept != y.kept || x.events.size() != y.events.size())
        return false;
    for (std::size_t i = 0; i < x.events.size(); ++i)
        if (show(x.events[i]) != show(y.events[i])) return false;
    return true;
}

// Feeds body in pieces starting at the given offsets (the first is 0); the
// headers arrive at t = 0 and piece j's read completes at t = j + 1. The last
// piece ends the body, unless the transport fails: then one more read, with
// no bytes, carries the failure. content_type is the header's value ("": none).
inline fed feed(int status, std::string_view body, const std::vector<std::size_t>& starts, error_class transport = none,
                std::string_view content_type = sse_type, response_mode mode = response_mode::stream) {
    chunk_decoder decoder;
    response_reader reader(decoder);
    reader.start(7, mode);
    fed out;
    const auto emit = [&](const event& e) { out.events.push_back(e); };
    reader.headers(status, content_type, 0, emit);
    for (std::size_t j = 0; j < starts.size(); ++j) {
        const std::size_t end = j + 1 < starts.size() ? starts[j + 1] : body.size();
        read_completion r;
        r.bytes = body.substr(starts[j], end - starts[j]);
        r.t_ns = static_cast<std::int64_t>(j + 1);
        r.body_complete = transport == none && j + 1 == starts.size();
        reader.read(r, emit);
    }
    if (transport != none) {
        read_completion r;
        r.t_ns = static_cast<std::int64_t>(starts.size() + 1);
        r.error = transport;
        reader.read(r, emit);
    }
    out.outcome = reader.outcome();
    out.finished = reader.finished();
    out.at_body_end = reader.ended_at_body_end();
    out.status = reader.status();
    out.answered = reader.answered_ns();
    out.kept = reader.kept_body();
    return out;
}

inline fed feed_whole(int status, std::string_view body, error_class transport = none,
                      std::string_view content_type = sse_type, response_mode mode = response_mode::stream) {
    return feed(status, body, {0}, transport, content_type, mode);
}

inline std::vector<std::size_t> bytewise(std::size_t n) {
    std::vector<std::size_t> starts(n);
    for (std::size_t i = 0; i < n; ++i) starts[i] = i;
    return starts;
}

// Byte by byte, an event's time says which byte completed it; under any other
// split it must be the read that carried that byte.
inline fed expected_for(const fed& bytewise_result, const std::vector<std::size_t>& starts, std::size_t size) {
    fed out = bytewise_result;
    for (event& e : out.events) {
        if (e.t_ns == 0) continue;  // the headers
        if (e.t_ns > static_cast<std::int64_t>(size)) {
            e.t_ns = static_cast<std::int64_t>(starts.size() + 1);  // the failing read after the body
            continue;
        }
        const auto byte = static_cast<std::size_t>(e.t_ns - 1);
        e.t_ns = std::upper_bound(starts.begin(), starts.end(), byte) - starts.begin();
    }
    return out;
}

// Every split into two non-empty pieces, a grid of three-way splits, random
// many-way splits (fixed seed) and the whole body at once give the events
// and the outcome that byte-at-a-time gives.
inline void check_splits(int status, std::string_view body, error_class transport = none,
                         std::string_view content_type = sse_type, response_mode mode = response_mode::stream) {
    BOOST_TEST_REQUIRE(body.size() >= 2u);
    const fed reference = feed(status, body, bytewise(body.size()), transport, content_type, mode);
    BOOST_TEST_REQUIRE(reference.finished);
    std::size_t tried = 0, mismatches = 0;
    std::string first;
    const auto check = [&](const std::vector<std::size_t>& starts) {
        ++tried;
        const fed got = feed(status, body, starts, transport, content_type, mode);
        const fed want = expected_for(reference, starts, body.size());
        if (same(got, want) || mismatches++ > 0) return;
        std::ostringstream os;
        os << "split at";
        for (const auto s : starts) os << ' ' << s;
        os << ": " << got << " expected " << want;
        first = os.str();
    };
    check({0});
    for (std::size_t i = 1; i < body.size(); ++i) check({0, i});
    const std::size_t step = std::max<std::size_t>(1, body.size() / 23);
    for (std::size_t i = 1; i < body.size(); i += step)
        for (std::size_t j = i + 1; j < body.size(); j += step) check({0, i, j});
    std::mt19937 rng(20261201);
    for (int round = 0; round < 100; ++round) {
        std::vector<std::size_t> starts{0};
        for (std::size_t pos = 0;;) {
            pos += std::uniform_int_distribution<std::size_t>(1, 64)(rng);
            if (pos >= body.size()) break;
            starts.push_back(pos);
        }
        check(starts);
    }
    BOOST_TEST(mismatches == 0u, mismatches << " of " << tried << " splits differ; first: " << first);
}

inline std::vector<std::string> lines(const fed& f) {
    std::vector<std::string> out;
    for (const auto& e : f.events) out.push_back(show(e));
    return out;
}

inline std::string with_crlf(std::string_view s) {
    std::string out;
    for (const char c : s) {
        if (c == '\n') out += '\r';
        out += c;
    }
    return out;
}

inline std::string with_cr(std::string_view s) {
    std::string out(s);
    std::replace(out.begin(), out.end(), '\n', '\r');
    return out;
}

}  // namespace reader_feed
