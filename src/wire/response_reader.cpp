#include "openloop/wire/response_reader.hpp"

#include <algorithm>

namespace openloop {

void response_reader::start(std::uint64_t request) {
    sse_.reset();
    request_ = request;
    status_ = 0;
    streaming_ = false;
    continuous_ = true;
    last_completion_ = 0;
    most_completion_ = 0;
    bad_usage_ = false;
    usage_completion_ = usage_prompt_ = usage_cached_ = -1;
    saw_done_ = false;
    done_ns_ = 0;
    stream_failure_ = error_class::none;
    outcome_ = error_class::none;
    finished_ = false;
    at_body_end_ = false;
}

event response_reader::on_headers(int status, std::int64_t t_ns) {
    status_ = status;
    return event{t_ns, 0, request_, status, 0, event_kind::headers};
}

bool response_reader::on_data(std::string_view data, std::int64_t t_ns, event& out) {
    // The first failure decides; after [DONE] the stream has said everything.
    if (stream_failure_ != error_class::none || saw_done_) return false;
    const chunk_info info = decoder_.decode(data);
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
    }
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
        out = event{t_ns, 0, request_, tokens, static_cast<std::int64_t>(info.content_chars), event_kind::chunk};
        return true;
    }
    case chunk_kind::done:
        saw_done_ = true;
        done_ns_ = t_ns;
        return false;
    case chunk_kind::error: stream_failure_ = error_class::server_error; return false;
    case chunk_kind::malformed: stream_failure_ = error_class::bad_chunk; return false;
    case chunk_kind::role_only:
    case chunk_kind::usage_only:
    case chunk_kind::empty: return false;
    }
    return false;
}

// Precedence: a transport failure outranks what the body said, except after
// [DONE]; a stream failure outranks the body's end; the status decides last.
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
        return false;
    } else {
        at_body_end_ = true;
        // Servers that never send [DONE] end the stream with the body.
        if (!saw_done_) done_ns_ = r.t_ns;
        if (!ok_status()) {
            finish(status_ >= 500 ? error_class::http_5xx : error_class::http_4xx);
            return false;
        }
    }
    finish(error_class::none);
    // With bad usage the output is counted by content chunks (completion -1);
    // prompt and cached figures that were themselves fine still stand.
    done = event{done_ns_, usage_cached_, request_, bad_usage_ ? -1 : usage_completion_, usage_prompt_,
                 event_kind::done, bad_usage_ ? std::uint8_t{done_bad_usage} : std::uint8_t{0}};
    return true;
}

void response_reader::finish(error_class outcome) {
    outcome_ = outcome;
    finished_ = true;
}

}  // namespace openloop
