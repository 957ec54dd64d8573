#include "openloop/wire/response_reader.hpp"

#include <algorithm>
#include <cctype>

namespace openloop {

body_type classify_content_type(std::string_view v) {
    const auto not_space = [](char c) { return c != ' ' && c != '\t'; };
    const auto first = std::find_if(v.begin(), v.end(), not_space);
    v.remove_prefix(static_cast<std::size_t>(first - v.begin()));
    if (v.empty()) return body_type::missing;
    v = v.substr(0, v.find(';'));
    while (!v.empty() && !not_space(v.back())) v.remove_suffix(1);
    constexpr std::string_view sse = "text/event-stream";
    const bool is_sse = v.size() == sse.size() && std::equal(v.begin(), v.end(), sse.begin(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) == b;
    });
    return is_sse ? body_type::event_stream : body_type::other;
}

namespace {

// A JSON body's Content-Type: application/json, or any type ending in +json
// (case-insensitive, parameters ignored).
bool names_json(std::string_view v) {
    v = v.substr(0, v.find(';'));
    const auto space = [](char c) { return c == ' ' || c == '\t'; };
    while (!v.empty() && space(v.front())) v.remove_prefix(1);
    while (!v.empty() && space(v.back())) v.remove_suffix(1);
    const auto ends_with = [&](std::string_view tail) {
        return v.size() >= tail.size() && std::equal(tail.begin(), tail.end(), v.end() - static_cast<std::ptrdiff_t>(tail.size()),
                                                     [](char a, char b) { return std::tolower(static_cast<unsigned char>(b)) == a; });
    };
    return (v.size() == 16 && ends_with("application/json")) || ends_with("+json");
}

}  // namespace

void response_reader::start(std::uint64_t request, response_mode mode, streamed_answer* answer) {
    sse_.reset();
    json_.reset();
    mode_ = mode;
    type_accepted_ = true;
    request_ = request;
    answer_ = answer;
    if (answer_) answer_->clear();
    status_ = 0;
    streaming_ = false;
    continuous_ = true;
    last_completion_ = 0;
    most_completion_ = 0;
    bad_usage_ = false;
    usage_completion_ = usage_prompt_ = usage_cached_ = usage_reasoning_ = -1;
    tool_call_ = false;
    thinking_ = false;
    thinking_delta_tokens_ = 0;
    tags_.start(mode == response_mode::stream ? parser_ : reasoning_parser::none);
    held_count_ = 0;
    saw_done_ = false;
    saw_finish_ = false;
    saw_data_ = false;
    done_ns_ = 0;
    type_ = body_type::event_stream;
    content_type_.clear();
    location_.clear();
    body_.clear();
    stream_failure_ = error_class::none;
    outcome_ = error_class::none;
    finished_ = false;
    at_body_end_ = false;
}

void response_reader::location(std::string_view url) { location_.assign(url.substr(0, redirect_location_cap)); }

event response_reader::on_headers(int status, std::string_view content_type, std::int64_t t_ns) {
    status_ = status;
    type_ = classify_content_type(content_type);
    // Without a Content-Type the body is read as what was asked for; an SSE
    // stream for a JSON request (or the other way round) is kept for its message.
    type_accepted_ = mode_ == response_mode::stream
                         ? type_ != body_type::other
                         : type_ == body_type::missing || (type_ == body_type::other && names_json(content_type));
    if (!type_accepted_) content_type_.assign(content_type.substr(0, 100));
    return event::response_headers(request_, t_ns, status);
}

bool response_reader::on_data(const sse_event& ev, std::int64_t t_ns, event& out) {
    // The first failure decides; after [DONE] (or response.completed) the stream has said everything.
    if (stream_failure_ != error_class::none || saw_done_) return false;
    saw_data_ = true;
    // `event: error` says what its payload is, whatever shape that has.
    if (ev.type == "error") {
        fail_in_stream(ev.data);
        return false;
    }
    const chunk_info info = decoder_.decode(ev.data);
    if (info.finished) saw_finish_ = true;
    if (info.has_usage) {
        // completion_tokens is cumulative wherever it appears: one that goes
        // down (continuous usage, or a final figure below a continuous one)
        // says the server's counting cannot be believed.
        if (info.bad_usage || (info.completion_tokens >= 0 && info.completion_tokens < most_completion_)) {
            bad_usage_ = true;
            continuous_ = false;
        }
        most_completion_ = std::max(most_completion_, info.completion_tokens);
        usage_completion_ = info.completion_tokens;
        usage_prompt_ = info.prompt_tokens;
        usage_cached_ = info.cached_tokens;
        if (info.reasoning_tokens >= 0) usage_reasoning_ = info.reasoning_tokens;
    }
    if (info.tool_call) tool_call_ = true;
    switch (info.kind) {
    case chunk_kind::content: {
        // vLLM's continuous_usage_stats: cumulative completion_tokens on every
        // chunk, so each delta is what that chunk carried. One content chunk
        // without a larger count and the deltas stop meaning anything.
        std::int64_t tokens = -1;
        if (continuous_ && info.has_usage && info.completion_tokens > last_completion_) {
            tokens = info.completion_tokens - last_completion_;
            last_completion_ = info.completion_tokens;
        } else {
            continuous_ = false;
        }
        streaming_ = true;
        out = content_event(info, t_ns, tokens);  // before append_text: info.text may lie in the decoder's memory
        if (answer_) decoder_.append_text(ev.data, *answer_);
        return true;
    }
    // A Responses stream's last event stands where [DONE] would: its usage was read above.
    case chunk_kind::completed:
    case chunk_kind::done:
        saw_done_ = true;
        done_ns_ = t_ns;
        return false;
    case chunk_kind::error: fail_in_stream(ev.data); return false;
    case chunk_kind::malformed:
        stream_failure_ = error_class::bad_chunk;
        keep_body(ev.data);  // for the message: the event's first bytes
        return false;
    case chunk_kind::role_only:
    case chunk_kind::usage_only:
    case chunk_kind::empty: return false;
    }
    return false;
}

event response_reader::content_event(const chunk_info& info, std::int64_t t_ns, std::int64_t tokens) {
    std::size_t reasoning = info.reasoning_chars;
    std::uint8_t flags = 0;
    if (tags_.reading()) {
        if (info.reasoning_chars > 0) {
            tags_.server_parses();
        } else if (const std::size_t tagged = tags_.read(info.text, info.text_escaped); tagged > 0) {
            reasoning += tagged;
            flags |= chunk_think_tags;
        }
    }
    // A chunk that only thought keeps the answer's clock (time to first answer token) waiting;
    // one that also answered divides its tokens between the two.
    const bool thinking = reasoning > 0 && reasoning == info.content_chars && !info.tool_call;
    const auto chars = static_cast<std::int64_t>(info.content_chars);
    const std::int64_t shared = thinking ? 0 : static_cast<std::int64_t>(reasoning);
    if (thinking) {
        flags |= chunk_reasoning;
        count_thinking(tokens >= 1 ? tokens : -1);
    } else if (shared > 0) {
        count_thinking(shared_reasoning_tokens(tokens, chars, shared));
    }
    return event::content(request_, t_ns, tokens, chars, flags, shared);
}

void response_reader::count_thinking(std::int64_t tokens) {
    thinking_ = true;
    if (thinking_delta_tokens_ >= 0) thinking_delta_tokens_ = tokens >= 0 ? thinking_delta_tokens_ + tokens : -1;
}

// The server's own words are all the results can show of why the request
// failed: this copy is the error path's, never a content chunk's.
void response_reader::fail_in_stream(std::string_view payload) {
    stream_failure_ = error_class::server_error;
    body_.assign(payload.substr(0, error_body_cap));
}

// The first bytes are kept as for a failed status: a 200 whose JSON is an
// error object, or not JSON, is then reported in the server's own words. A
// body that stops being JSON is still read to its end, so what is kept (and
// whether the connection can carry another request) does not depend on how
// the reads split it.
void response_reader::scan_body(std::string_view bytes) {
    keep_body(bytes);
    json_.feed(bytes);
}

void response_reader::keep_body(std::string_view bytes) {
    body_.append(bytes.substr(0, error_body_cap - std::min(error_body_cap, body_.size())));
}

error_class response_reader::status_failure() const {
    if (status_ >= 500) return error_class::http_5xx;
    // openloop does not follow redirects: a POST redirected would be sent again
    // unmeasured, and the URL it points to is the one to benchmark.
    if (status_ >= 300 && status_ < 400) return error_class::http_3xx;
    // A 200 that is not a stream; any other status counts with the 4xx.
    return ok_status() ? error_class::no_content : error_class::http_4xx;
}

// Precedence: a transport failure outranks what the body said, except after
// [DONE]; a stream failure outranks the body's end; the status decides last.
// A body that is not a stream is read to its end (or error_body_cap) for what
// it says, then fails by its status.
bool response_reader::conclude(const read_completion& r, event& done) {
    if (r.error != error_class::none) {
        // After [DONE] the stream has said everything; a torn connection is not a failed request.
        if (!(saw_done_ && ok_status() && stream_failure_ == error_class::none)) {
            finish(r.error);
            return false;
        }
    } else if (stream_failure_ != error_class::none) {
        finish(stream_failure_);
        return false;
    } else if (!r.body_complete) {
        // A body kept for its message stops at the cap: the rest says nothing new.
        if (keeping_body() && body_.size() >= error_body_cap) {
            finish(status_failure());
        }
        return false;
    } else {
        at_body_end_ = true;
        if (!accepting_body()) {
            finish(status_failure());
            return false;
        }
        if (mode_ == response_mode::json) return conclude_json(r.t_ns, done);
        // Servers that never send [DONE] end the stream with the body, but
        // then a finish_reason said it was over; without either it was cut.
        // A Responses stream has neither: only response.completed says it ended.
        if (!saw_done_ && !saw_finish_ && saw_data_) {
            at_body_end_ = false;  // what the server sends next cannot be trusted either
            finish(error_class::stream_truncated);
            return false;
        }
        // A 200 that carried no content chunk (nothing at all, or no SSE
        // events in a body without a Content-Type) generated nothing.
        if (!streaming_) {
            finish(error_class::no_content);
            return false;
        }
        if (!saw_done_) done_ns_ = r.t_ns;
    }
    finish(error_class::none);
    // A session sends the answer back, not the thinking that came before it in the content.
    if (answer_ && tags_.used()) {
        const std::size_t close = answer_->text.find("</think>");
        answer_->text.erase(0, close == std::string::npos ? std::string::npos : close + 8);
    }
    // With bad usage the output is counted by content chunks (completion -1);
    // prompt and cached figures that were themselves fine still stand.
    std::uint8_t flags = bad_usage_ ? std::uint8_t{done_bad_usage} : std::uint8_t{0};
    if (tool_call_) flags |= done_tool_call;
    done = event::completion(request_, done_ns_, bad_usage_ ? -1 : usage_completion_, usage_prompt_, usage_cached_, flags);
    return true;
}

// A completion that generated nothing fails as a stream without content
// does; an embeddings list generates nothing by design, so its output is 0.
bool response_reader::conclude_json(std::int64_t t_ns, event& done) {
    const json_body_info b = json_.finish();
    const chunk_info& i = b.info;
    if (i.kind == chunk_kind::error) {
        finish(error_class::server_error);
        return false;
    }
    const bool generated = b.has_choices || b.has_output || b.has_text;
    if (i.kind == chunk_kind::malformed || (!generated && !b.has_data)) {
        finish(error_class::bad_chunk);
        return false;
    }
    if (generated && i.kind != chunk_kind::content && i.completion_tokens <= 0) {
        finish(error_class::no_content);
        return false;
    }
    finish(error_class::none);
    done_ns_ = t_ns;
    std::int64_t completion = i.bad_usage ? -1 : i.completion_tokens;
    if (!generated && !i.bad_usage) completion = 0;
    bad_usage_ = i.bad_usage;
    usage_completion_ = completion;
    // A non-streamed body's thinking is only known by the usage's count.
    usage_reasoning_ = i.reasoning_tokens;
    thinking_ = i.reasoning_chars > 0;
    thinking_delta_tokens_ = -1;
    std::uint8_t flags = done_unstreamed;
    if (i.bad_usage) flags |= done_bad_usage;
    if (i.tool_call) flags |= done_tool_call;
    done = event::completion(request_, t_ns, completion, i.prompt_tokens, i.cached_tokens, flags);
    return true;
}

std::int64_t response_reader::answer_tokens() const {
    if (bad_usage_ || usage_completion_ < 0) return -1;
    const std::int64_t thought = usage_reasoning_ >= 0 ? usage_reasoning_ : thinking_ ? thinking_delta_tokens_ : 0;
    return thought < 0 ? -1 : std::max<std::int64_t>(0, usage_completion_ - thought);
}

void response_reader::finish(error_class outcome) {
    outcome_ = outcome;
    finished_ = true;
}

}  // namespace openloop
