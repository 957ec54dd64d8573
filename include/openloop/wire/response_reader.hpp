#pragma once
// Reading one response, without a socket: fed the status, the body bytes as
// each read delivers them (already de-chunked, with the time of that read) and
// how each read ended, it decides what the response means for the clocks —
// which chunks carry content, how many tokens each carried, when the stream
// ended — and how it ended: completed, or failed in exactly one error class.
// A Responses API stream (typed events, no [DONE]) is read the same way: its
// response.completed ends it. A request sent with "stream": false is read in
// JSON mode: its one body is scanned as it arrives (json_body.hpp) and its end
// is the done event, with no chunk events. The request coroutine only moves bytes and timestamps; this is
// what the unit tests feed with recorded streams and bodies split every way.

#include "openloop/measure/event.hpp"
#include "openloop/wire/chunk.hpp"
#include "openloop/wire/json_body.hpp"
#include "openloop/wire/sse.hpp"
#include "openloop/wire/think_tags.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

// How a 200's Content-Type reads: an SSE stream, absent (read as SSE: some
// servers send none), or anything else (a login page, a JSON completion that
// ignored stream: true). Case-insensitive; parameters are ignored.
enum class body_type : std::uint8_t { event_stream, missing, other };
body_type classify_content_type(std::string_view content_type);

// What the request asked for: an SSE stream, or one JSON body ("stream": false,
// and every embeddings request).
enum class response_mode : std::uint8_t { stream, json };

// Up to this much of a body that is not a stream is kept, so that the
// failure can say what the server said; past it the response is given up
// (its connection is not reused).
inline constexpr std::size_t error_body_cap = 4096;
// Up to this much of a redirect's Location is kept for its message.
inline constexpr std::size_t redirect_location_cap = 300;

// What one read completion delivered and how it left the response.
struct read_completion {
    std::string_view bytes;  // body bytes, de-chunked
    std::int64_t t_ns = 0;   // taken once, when the read completed
    bool body_complete = false;
    // The transport's failure, already classified (a timeout, body_too_large,
    // stream_truncated, cancelled, io); none when the read succeeded.
    error_class error = error_class::none;
};

class response_reader {
public:
    // decode() keeps no state between calls, so one decoder serves every
    // request on the thread. parser: how thinking inside the content is read (think_tags.hpp).
    explicit response_reader(chunk_decoder& decoder, reasoning_parser parser = reasoning_parser::auto_detect)
        : decoder_(decoder), parser_(parser) {}

    // Forgets the last response but keeps buffer capacity. With answer, the
    // generated text of every content chunk is collected there (cleared
    // first): a session's next turn sends it back.
    void start(std::uint64_t request, response_mode mode = response_mode::stream, streamed_answer* answer = nullptr);

    // A redirect's Location header, before headers(): what its failure message names.
    void location(std::string_view url);

    // The status line and headers arrived at t_ns: emits the headers event.
    // content_type is the header's value, empty when there was none.
    template <class Emit>
    void headers(int status, std::string_view content_type, std::int64_t t_ns, Emit&& emit) {
        emit(on_headers(status, content_type, t_ns));
    }

    // One read completion, before or after the headers: emits a chunk event
    // per content chunk in its bytes and, when the response completes, the
    // done event. Ignored once finished().
    template <class Emit>
    void read(const read_completion& r, Emit&& emit) {
        if (finished_) return;
        if (accepting_body() && !r.bytes.empty() && mode_ == response_mode::json) {
            scan_body(r.bytes);
        } else if (accepting_body() && !r.bytes.empty()) {
            sse_.feed(r.bytes, [&](const sse_event& ev) {
                event e;
                if (!on_data(ev, r.t_ns, e)) return;
                // Chunks that may yet open <think> wait (keeping their times) until it is decided.
                if (tags_.undecided() && held_count_ < held_.size()) {
                    held_[held_count_++] = e;
                    return;
                }
                emit_held(emit);
                emit(static_cast<const event&>(e));
            });
            if (sse_.error() != sse_error::none) stream_failure_ = error_class::bad_chunk;
        } else if (keeping_body()) {
            keep_body(r.bytes);
        }
        event done;
        const bool completed = conclude(r, done);
        if (finished_) emit_held(emit);  // a stream that ended undecided never opened <think>: answer
        if (completed) {
            if (done_reasoning() >= 0) emit(event::reasoning(request_, done.t_ns, done_reasoning()));
            emit(static_cast<const event&>(done));
        }
    }

    bool finished() const { return finished_; }
    // Once finished(): none for a completed response, else why it failed.
    error_class outcome() const { return outcome_; }
    int status() const { return status_; }  // 0 until the headers arrived
    // Once finished() with none: the done event's time, the read that completed the answer
    // (its [DONE], finish or body end), which may come a read before the body's last bytes.
    std::int64_t answered_ns() const { return done_ns_; }
    response_mode mode() const { return mode_; }
    // Once finished() with none: the answer's tokens, thinking left out, as the usage
    // counted them (completion tokens less the usage's reasoning tokens, or less the
    // continuous usage its thinking chunks carried); -1 when the usage does not say.
    std::int64_t answer_tokens() const;
    // A content chunk arrived: from now on the idle timeout applies.
    bool streaming() const { return streaming_; }
    // The stream said it was over ([DONE], response.completed) with nothing
    // broken: the response completes however its body then ends.
    bool said_done() const { return saw_done_ && accepting_body(); }
    // The response ended where its body ended, with nothing broken: the
    // connection may carry another request (if the server keeps it alive).
    bool ended_at_body_end() const { return at_body_end_; }
    // Once finished() with a failure: the first bytes of a body that was not
    // a stream (an error status's JSON, an HTML page, a JSON body that failed),
    // or the payload of the error event that ended a stream, up to error_body_cap.
    std::string_view kept_body() const { return body_; }
    std::string_view content_type() const { return content_type_; }
    // The SSE framing's failure (an event or line past its bound), which kept_body() cannot show.
    sse_error stream_error() const { return sse_.error(); }
    std::size_t max_event_bytes() const { return sse_.max_event_bytes(); }
    // A redirect's Location, cut to redirect_location_cap; empty when it had none.
    std::string_view redirect_location() const { return location_; }

private:
    bool ok_status() const { return status_ == 200; }
    // The usage's reasoning tokens the done event comes with; -1: none, or not believed.
    std::int64_t done_reasoning() const { return bad_usage_ ? -1 : usage_reasoning_; }
    bool accepting_body() const { return ok_status() && type_accepted_ && stream_failure_ == error_class::none; }
    bool keeping_body() const { return status_ != 0 && !accepting_body() && stream_failure_ == error_class::none; }
    void keep_body(std::string_view bytes);
    void scan_body(std::string_view bytes);
    // JSON mode, at body end: the body's verdict and, when it completed, the done event.
    bool conclude_json(std::int64_t t_ns, event& done);
    // The class a finished body that was not read as a stream fails in.
    error_class status_failure() const;
    event on_headers(int status, std::string_view content_type, std::int64_t t_ns);
    bool on_data(const sse_event& ev, std::int64_t t_ns, event& out);
    // The content chunk's event: its thinking from the server's fields and from <think> tags.
    event content_event(const chunk_info& info, std::int64_t t_ns, std::int64_t tokens);
    // A chunk's thinking tokens (-1: unknown) join the count its answer's tokens are told by.
    void count_thinking(std::int64_t tokens);
    // The held chunks, marked as the tags decided, emitted in order.
    template <class Emit>
    void emit_held(Emit& emit) {
        for (std::size_t i = 0; i < held_count_; ++i) {
            event& e = held_[i];
            if (tags_.used()) {
                e.flags |= chunk_reasoning | chunk_think_tags;
                count_thinking(e.chunk_tokens());
            }
            emit(static_cast<const event&>(e));
        }
        held_count_ = 0;
    }
    void fail_in_stream(std::string_view payload);
    bool conclude(const read_completion& r, event& done);
    void finish(error_class outcome);

    chunk_decoder& decoder_;
    sse_parser sse_;
    std::uint64_t request_ = 0;
    streamed_answer* answer_ = nullptr;
    int status_ = 0;
    bool streaming_ = false;
    bool continuous_ = true;  // usage came with every content chunk so far: its deltas count tokens
    std::int64_t last_completion_ = 0;
    std::int64_t most_completion_ = 0;  // the largest usage.completion_tokens so far
    bool bad_usage_ = false;            // see done_bad_usage
    std::int64_t usage_completion_ = -1, usage_prompt_ = -1, usage_cached_ = -1, usage_reasoning_ = -1;
    bool tool_call_ = false;  // some chunk carried a tool call or finished with one
    bool thinking_ = false;   // some chunk only thought
    std::int64_t thinking_delta_tokens_ = 0;  // the continuous usage its thinking chunks carried, -1: unknown
    reasoning_parser parser_;
    think_tag_reader tags_;
    // auto: the chunks whose content may still be the opening <think>, each with at least one of
    // its characters (the tag's last decides), held until it is decided.
    std::array<event, think_tag_reader::open_tag_size - 1> held_{};
    std::size_t held_count_ = 0;
    bool saw_done_ = false;
    bool saw_finish_ = false;  // some chunk carried a finish_reason
    bool saw_data_ = false;    // some SSE data payload arrived
    std::int64_t done_ns_ = 0;
    body_type type_ = body_type::event_stream;
    response_mode mode_ = response_mode::stream;
    bool type_accepted_ = true;  // the Content-Type is what the mode reads
    json_body_scanner json_;
    std::string content_type_;  // only kept when it is not what the mode reads
    std::string location_;      // only a redirect's
    std::string body_;          // see kept_body(); allocated only on a failure's path
    error_class stream_failure_ = error_class::none;  // what the body said was wrong
    error_class outcome_ = error_class::none;
    bool finished_ = false;
    bool at_body_end_ = false;
};

}  // namespace openloop
