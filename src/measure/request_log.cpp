#include "openloop/measure/request_log.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/measure/media_stats.hpp"

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

namespace openloop {

namespace {


void put_ns(json_line& o, std::string_view key, std::int64_t ns) {
    if (ns >= 0) {
        o.field(key, ns);
    } else {
        o.null(key);
    }
}

void put_ms(json_line& o, std::string_view key, std::int64_t from, std::int64_t to) {
    if (from >= 0 && to >= 0) {
        o.field(key, ns_to_ms(to - from));
    } else {
        o.null(key);
    }
}

}  // namespace

void request_log::open(const std::string& path, std::string request_id_prefix, bool chunk_gaps, int session_stride) {
    chunk_gaps_ = chunk_gaps;
    session_stride_ = static_cast<std::uint64_t>(std::max(session_stride, 0));
    id_prefix_ = std::move(request_id_prefix);
    out_.open(path);
}

void request_log::set_names(std::vector<std::string> models, std::vector<std::string> buckets) {
    models_ = std::move(models);
    buckets_ = std::move(buckets);
}

void request_log::ended(std::uint64_t index, const request_timeline& r, const logged_end& end) {
    if (!out_.is_open()) {
        return;
    }
    // Field by field into one reused line: the same text compact_json wrote
    // from a JSON object, without one built per request.
    line_.clear();
    json_line o(line_);
    id_.assign(id_prefix_);
    char digits[24];
    id_.append(digits, std::to_chars(digits, digits + sizeof digits, index).ptr);
    o.field("id", std::string_view(id_));
    o.field("index", index);
    if (session_stride_ > 0) {
        o.field("session", index / session_stride_);
        o.field("turn", index % session_stride_ + 1);  // from 1, as the table counts them
    }
    if (!models_.empty()) {
        if (r.model < models_.size()) {
            o.field("model", std::string_view(models_[r.model]));
        } else {
            o.field("model", std::to_string(r.model));  // as run_stats names an index past the list
        }
    }
    o.field("warmup", r.warmup);
    o.field("status", end.status);
    if (end.error.empty()) {
        o.null("error");
    } else {
        o.field("error", end.error);
    }
    if (r.http_status != 0) {
        o.field("http_status", r.http_status);
    } else {
        o.null("http_status");
    }
    put_ns(o, "intended_ns", r.intended);
    if (r.released >= 0) put_ns(o, "released_ns", r.released);  // absent unless it waited for a slot
    put_ns(o, "sent_ns", r.sent);
    put_ns(o, "headers_ns", r.headers);
    // A non-streamed answer has no token times (nor TTFT or TPOT below): absent, not 0.
    if (!r.streamed) o.field("streamed", false);
    if (r.streamed) {
        put_ns(o, "first_token_ns", r.first_chunk);
        // A thinking model's (or a tool call's) first answer chunk; other lines' is their first token.
        if (r.reasoning_chunks > 0 || r.tool_call) put_ns(o, "first_answer_ns", r.first_answer);
        put_ns(o, "last_token_ns", r.last_chunk);
    }
    put_ns(o, "end_ns", end.end_ns);
    o.field("input_tokens", r.input_tokens);
    if (r.prompt_tokens >= 0) {
        o.field("prompt_tokens", r.prompt_tokens);
    } else {
        o.null("prompt_tokens");
    }
    if (r.has_media()) {
        o.field("images", r.images);
        o.field("audios", r.audios);
        // Only images have a size bucket: an audio-only line has none.
        if (r.images > 0 && r.bucket >= 0 && static_cast<std::size_t>(r.bucket) < buckets_.size()) {
            o.field("bucket", std::string_view(buckets_[static_cast<std::size_t>(r.bucket)]));
        } else if (r.images > 0) {
            o.field("bucket", r.bucket < 0 ? "mixed" : "?");
        }
        o.field("body_bytes", r.body_bytes);
        // Negative when the server counted fewer prompt tokens than the text had: written as it is.
        if (const media_tokens t = media_tokens_of(r); t.known) o.field("media_tokens", t.count);
    }
    o.field("max_tokens", r.max_tokens);
    if (end.output_counted) {
        o.field("output_tokens", end.output_tokens);
    } else {
        o.null("output_tokens");
    }
    o.field("output_tokens_source", end.output_from_usage ? "usage" : end.output_counted ? "chunks" : "none");
    if (end.bad_usage) {
        o.field("bad_usage", true);  // absent when false, so ordinary lines stay as they were
    }
    if (!end.good) o.field("good", false);  // likewise: absent when the request met the goodput SLO
    o.field("chunks", r.chunks);
    put_ns(o, "cached_tokens", end.cached_tokens);
    if (r.released >= 0) {
        put_ms(o, "queue_ms", r.intended, r.released);
        put_ms(o, "lag_ms", r.released, r.sent);
    } else {
        put_ms(o, "lag_ms", r.intended, r.sent);
    }
    if (r.streamed) {
        put_ms(o, "ttft_ms", r.intended, r.first_chunk);
        if (r.reasoning_chunks > 0 || r.tool_call) put_ms(o, "ttfa_ms", r.intended, r.first_answer);
        if (end.tpot_ns >= 0) {
            o.field("tpot_ms", ns_to_ms(end.tpot_ns));
        } else {
            o.null("tpot_ms");
        }
    }
    put_ms(o, "e2e_ms", r.intended, r.streamed ? r.last_chunk : r.answered);
    if (end.status == "ok" && (end.reasoning_from != reasoning_source::none || r.reasoning_chunks > 0 || r.tool_call)) {
        if (end.reasoning_ns >= 0) {
            o.field("reasoning_ms", ns_to_ms(end.reasoning_ns));
        } else {
            o.null("reasoning_ms");
        }
        o.field("reasoning_tokens", end.reasoning_tokens);
        o.field("answer_tokens", end.answer_tokens);
        o.field("reasoning_source", reasoning_source_name(end.reasoning_from));
        if (end.ended_thinking) o.field("ended_thinking", true);
        if (r.tool_call) o.field("tool_call", true);
        if (r.think_tags) o.field("think_tags", true);
    }
    if (chunk_gaps_) o.numbers("chunk_gaps_ms", r.gaps, [](const chunk_gap& g) { return ns_to_ms(g.ns); });
    o.field("retried", r.retried);
    if (r.connect >= 0) {
        o.field("connect_ms", ns_to_ms(r.connect));
    } else {
        o.null("connect_ms");  // on a pooled connection: no connect on its path
    }
    o.end();
    line_.push_back('\n');
    out_.write(line_);
}

void request_log::flush() { out_.flush(); }

void request_log::check() { out_.check(); }

void request_log::close() { out_.close(); }

}  // namespace openloop
