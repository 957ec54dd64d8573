#pragma once
// Incremental Server-Sent Events parser: a socket-free state machine fed with
// arbitrary slices of a response body (already de-chunked) as they arrive.
// It follows the WHATWG EventSource parsing rules: LF, CRLF or a lone CR end a
// line (a CR ending one slice and an LF starting the next are one ending), a
// leading UTF-8 BOM is skipped, `:` lines are comments, `data` lines are joined
// with '\n', and an empty line dispatches the event when a `data` line was seen.
// One exception for llama.cpp: an `error` line is read as `event: error` with
// its value as data. Buffers are reused, so a steady stream costs no
// allocation per event.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

namespace openloop {

enum class sse_error : std::uint8_t {
    none,
    event_too_large,  // an event's data or one line exceeded max_event_bytes
};

// One dispatched event; views are valid only during the callback.
struct sse_event {
    std::string_view data;
    std::string_view type;  // `event` field; empty means the default, "message"
    std::string_view id;    // last event id seen so far in the stream (it persists, per spec)
};

class sse_parser {
public:
    // A chunk is a few hundred bytes; this bound only stops a broken server from
    // growing our buffers without limit.
    static constexpr std::size_t default_max_event_bytes = 16 * 1024 * 1024;

    // Feeds bytes and calls on_event for each event completed by them, with the
    // event's data (std::string_view) if on_event accepts that, else with an
    // sse_event. Returns the number of events dispatched. Once error() is set,
    // input is ignored until reset().
    template <class F>
    std::size_t feed(std::string_view bytes, F&& on_event) {
        std::size_t dispatched = 0;
        while (true) {
            const std::size_t used = advance(bytes);
            bytes.remove_prefix(used);
            if (!ready_)
                return dispatched;
            ++dispatched;
            if constexpr (std::is_invocable_v<F&, std::string_view>)
                on_event(std::string_view(data_));
            else
                on_event(sse_event{data_, event_type_, last_event_id_});
        }
    }

    // Comment lines seen (servers send them as keep-alives).
    std::size_t comments() const { return comments_; }
    // Events dispatched since construction or reset().
    std::size_t events() const { return events_; }
    // True when bytes of an undispatched event are pending: a stream that ends
    // now ended mid-event.
    bool in_event() const;
    sse_error error() const { return error_; }
    // Last `retry` field value, in milliseconds.
    std::optional<std::uint64_t> retry_ms() const { return retry_ms_; }

    // Forgets the stream (for the next response) but keeps buffer capacity and
    // the max_event_bytes setting.
    void reset();
    void set_max_event_bytes(std::size_t n) { max_event_bytes_ = n; }
    std::size_t max_event_bytes() const { return max_event_bytes_; }

private:
    // Consumes bytes up to and including the line that completes an event (then
    // ready_ is set and the event is in data_), or all of them. Returns the
    // number of bytes consumed.
    std::size_t advance(std::string_view bytes);
    void process_line(std::string_view line);
    void append_data(std::string_view value);
    void fail(sse_error e);

    std::string line_;        // a line split across slices, until its end arrives
    std::string data_;        // the current event's data
    std::string event_type_;  // the current event's type
    std::string last_event_id_;
    std::optional<std::uint64_t> retry_ms_;
    std::size_t comments_ = 0;
    std::size_t events_ = 0;
    std::size_t max_event_bytes_ = default_max_event_bytes;
    std::uint8_t bom_matched_ = 0;  // bytes of a leading BOM matched so far
    bool bom_done_ = false;         // past the point where a BOM may appear
    bool pending_cr_ = false;       // the last byte was a CR: a following LF is part of its line ending
    bool data_seen_ = false;        // a `data` field was seen in the current event
    bool fields_seen_ = false;      // any field line was seen in the current event
    bool ready_ = false;            // data_ holds an event that has just been dispatched
    sse_error error_ = sse_error::none;
};

}  // namespace openloop
