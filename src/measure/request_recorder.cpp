#include "openloop/measure/request_recorder.hpp"

#include "openloop/measure/session_log.hpp"

#include <algorithm>
#include <string>

namespace openloop {

request_recorder::request_recorder(const recorder_options& options) : options_(options) {
    stats_.fidelity = replay_fidelity(options_.trace);
    stats_.sessions.stride = options_.session_stride;
    for (const std::string& name : options_.model_names) stats_.by_model.emplace_back(name, stats_.by_model.size());
    if (options_.media) stats_.media.emplace(options_.bucket_labels);
}

void request_recorder::process(const event& e) {
    const std::int64_t origin = options_.run_start_ns != 0 ? options_.run_start_ns : e.t_ns;
    for (request_sink* s : sinks_) {
        s->start(origin);
        s->advance(e.t_ns, measured_inflight_);
    }
    if (options_.steady_throughput) sample_inflight(e.t_ns);
    switch (e.kind) {
    case event_kind::start: on_start(e); break;
    case event_kind::refused: on_refused(e); break;
    case event_kind::connect:
        if (auto* r = live_.find(e.request)) {
            r->connect = e.connect_ns();
        }
        break;
    case event_kind::released:
        if (auto* r = live_.find(e.request); r != nullptr && r->released < 0) {
            r->released = e.t_ns;
            if (!r->warmup) {
                ++stats_.queued;
                stats_.queue.record(e.t_ns - r->intended);
            }
        }
        break;
    case event_kind::sent: on_sent(e); break;
    case event_kind::headers:
        if (auto* r = live_.find(e.request); r != nullptr && r->headers < 0) {
            r->headers = e.t_ns;
            r->http_status = e.http_status();
        }
        break;
    case event_kind::chunk:
        if (auto* r = live_.find(e.request)) {
            r->add_chunk(e.t_ns, e.chunk_tokens(), (e.flags & chunk_reasoning) != 0, e.shared_reasoning_chars(),
                         e.chunk_chars());
            if ((e.flags & chunk_think_tags) != 0) r->think_tags = true;
        }
        break;
    case event_kind::reasoning_usage:
        if (auto* r = live_.find(e.request)) r->usage_reasoning = e.reasoning_tokens();
        break;
    case event_kind::media: on_media(e); break;
    case event_kind::done: on_done(e); break;
    case event_kind::failed: on_failed(e); break;
    case event_kind::drain_over: drain_over_ = true; break;
    case event_kind::session_end: on_session_end(e); break;
    case event_kind::retry:
        if (auto* r = live_.find(e.request); r != nullptr && !r->retried) {
            r->retried = true;
            if (!r->warmup) ++stats_.retried_stale;
        }
        break;
    }
}

// The count only changes at events, so sampling the grid points an event
// passes, before applying it, records the step function exactly.
void request_recorder::sample_inflight(std::int64_t t) {
    constexpr std::int64_t step = 100'000'000;
    if (stats_.inflight_step_ns == 0) {
        stats_.inflight_step_ns = step;
        stats_.inflight_origin_ns = t;
        next_inflight_sample_ns_ = t;
    }
    for (; next_inflight_sample_ns_ <= t; next_inflight_sample_ns_ += step) {
        stats_.inflight_samples.push_back(static_cast<std::uint32_t>(live_.size()));
    }
}

void request_recorder::on_start(const event& e) {
    request_timeline* started = live_.begin(e.request);
    if (!started) return;
    request_timeline& r = *started;
    r.intended = e.t_ns;
    r.input_tokens = e.input_tokens();
    r.max_tokens = options_.generates ? e.max_tokens() : 0;
    r.warmup = e.warmup();
    r.model = e.model();
    if (r.warmup) {
        ++stats_.warmup_started;
        return;
    }
    if (model_stats* m = model_of(r)) ++m->started;
    if (stats_.started == 0 || e.t_ns < stats_.first_intended_ns) {
        stats_.first_intended_ns = e.t_ns;
    }
    if (stats_.started > 0) stats_.asked_gap.record(e.t_ns - previous_intended_ns_);
    previous_intended_ns_ = e.t_ns;
    last_intended_ns_ = std::max(last_intended_ns_, e.t_ns);
    ++stats_.started;
    stats_.fidelity.asked(e.t_ns);
    for (request_sink* s : sinks_) s->offered();
    ++measured_inflight_;
    stats_.max_inflight = std::max(stats_.max_inflight, measured_inflight_);
}

void request_recorder::on_refused(const event& e) {
    if (e.warmup()) return;
    ++stats_.refused;
    request_timeline refused;
    refused.model = e.model();
    if (model_stats* m = model_of(refused)) ++m->refused;
    stats_.fidelity.asked(e.t_ns);
    for (request_sink* s : sinks_) s->refused();
}

void request_recorder::on_sent(const event& e) {
    request_timeline* r = live_.find(e.request);
    if (r == nullptr || r->sent >= 0) return;
    r->sent = e.t_ns;
    // Lag measures the generator, not the server: every measured request that
    // went out counts, whatever became of it. One that waited for a slot was
    // due when the slot freed.
    if (r->warmup) return;
    const std::int64_t due = r->released >= 0 ? r->released : r->intended;
    stats_.lag.record(e.t_ns - due);
    for (request_sink* s : sinks_) s->lag(e.t_ns - due);
    r->reusable_at_send = stats_.fidelity.sent(e.request, e.t_ns);
    if (last_sent_ns_ > 0) stats_.sent_gap.record(e.t_ns - last_sent_ns_);
    last_sent_ns_ = e.t_ns;
}

void request_recorder::on_done(const event& e) {
    request_timeline* live = live_.find(e.request);
    if (!live) return;
    if (options_.steady_throughput) completion_ends_.push_back(e.t_ns);
    request_timeline& r = *live;
    const stream_usage usage{e.completion_tokens(), e.prompt_tokens(), e.cached_tokens(), (e.flags & done_bad_usage) != 0,
                             r.usage_reasoning};
    r.prompt_tokens = e.prompt_tokens();
    r.tool_call = (e.flags & done_tool_call) != 0;
    if ((e.flags & done_unstreamed) != 0) {
        r.streamed = false;
        r.answered = e.t_ns;
    }
    const request_metrics m = measure_request(r, usage);
    const bool good = meets(options_.slo, r, m);
    if (!r.warmup) {
        record_completed(stats_, r, m, usage, good);
        if (model_stats* per_model = model_of(r)) record_model_completed(*per_model, r, m, good);
        if (stats_.media) stats_.media->completed(r, m);
        if (stats_.sessions.enabled())
            stats_.sessions.completed_turn(e.request, m.ttft, m.e2e, e.prompt_tokens(), e.cached_tokens(),
                                           m.output_counted ? m.output_tokens : -1, r.tool_call);
        stats_.fidelity.completed({e.request, r.input_tokens, r.has_media() ? -1 : usage.prompt_tokens, r.max_tokens,
                                   // Nothing asked (a transcription's answer is what it hears): no length to compare.
                                   m.output_from_usage && r.max_tokens > 0 ? m.output_tokens : -1, usage.cached_tokens,
                                   r.reusable_at_send});
        end_measured(e.t_ns);
        for (request_sink* s : sinks_) s->completed(r, m);
    }
    stats_.fidelity.cached_by_server(e.request);  // warm-up ones too: the server cached them alike
    logged_end end;
    end.status = "ok";
    end.end_ns = e.t_ns;
    end.output_tokens = m.output_tokens;
    end.output_from_usage = m.output_from_usage;
    end.output_counted = m.output_counted;
    end.bad_usage = m.bad_usage;
    end.cached_tokens = e.cached_tokens();
    end.tpot_ns = m.tpot;
    end.good = good;
    end.reasoning_ns = m.reasoning;
    end.reasoning_tokens = m.reasoning_tokens;
    end.answer_tokens = m.answer_tokens;
    end.reasoning_from = m.reasoning_from;
    end.ended_thinking = m.ended_thinking;
    for (request_sink* s : sinks_) s->ended(e.request, r, end);
    live_.end(e.request);
}

void request_recorder::on_failed(const event& e) {
    request_timeline* live = live_.find(e.request);
    if (!live) return;
    request_timeline& r = *live;
    error_class cls = (e.error() >= 0 && e.error() < error_class_count) ? static_cast<error_class>(e.error()) : error_class::io;
    // The wire knows only that it was cancelled; the ring's order says it was the drain limit.
    if (drain_over_ && cls == error_class::cancelled) cls = error_class::cancelled_at_end;
    if (e.http_status() != 0) {
        r.http_status = e.http_status();
    }
    if (!r.warmup) {
        ++stats_.failed;
        if (model_stats* m = model_of(r)) ++m->failed;
        ++stats_.failed_by_class[static_cast<std::size_t>(cls)];
        if (stats_.sessions.enabled()) stats_.sessions.failed_turn(e.request);
        // A stream that broke after a 200 is a stream failure, not an HTTP one.
        if (e.http_status() >= 400) {
            count_status(e.http_status());
        }
        end_measured(e.t_ns);
        for (request_sink* s : sinks_) s->failed(cls);
    }
    logged_end end;
    end.status = "failed";
    end.error = error_class_name(cls);
    end.end_ns = e.t_ns;
    end.output_tokens = r.chunks;
    for (request_sink* s : sinks_) s->ended(e.request, r, end);
    live_.end(e.request);
}

void request_recorder::on_session_end(const event& e) {
    const bool warmup = (e.flags & session_warmup) != 0;
    if (!warmup) stats_.sessions.session_ended(e.t_ns, e.first_intended_ns(), e.turns_completed(), e.turns_planned(), e.flags);
    if (!stats_.sessions.enabled()) return;
    const session_end_line line{e.request / static_cast<std::uint64_t>(stats_.sessions.stride), warmup,
                                e.first_intended_ns(), e.t_ns, e.turns_planned(), e.turns_completed(), e.flags};
    for (request_sink* s : sinks_) s->session_ended(line);
}

void request_recorder::on_media(const event& e) {
    request_timeline* r = live_.find(e.request);
    if (r == nullptr) return;
    r->body_bytes = std::max<std::int64_t>(e.body_bytes(), 0);
    r->images = e.images();
    r->audios = e.audios();
    r->bucket = e.bucket();
    if (r->warmup) return;
    if (!stats_.media) stats_.media.emplace(options_.bucket_labels);
    stats_.media->sent(r->body_bytes, r->images, r->audios);
}

// Null unless the run is mixed. An index past the names given (the writer's, not the
// user's doing) gets a model of its own, named by its number, rather than a wrong one.
model_stats* request_recorder::model_of(const request_timeline& r) {
    if (stats_.by_model.empty()) return nullptr;
    while (stats_.by_model.size() <= r.model) {
        const std::size_t index = stats_.by_model.size();
        stats_.by_model.emplace_back(std::to_string(index), index);
    }
    return &stats_.by_model[r.model];
}

void request_recorder::count_status(int status) {
    auto& counts = stats_.http_status_counts;
    const auto it = std::lower_bound(counts.begin(), counts.end(), status,
                                     [](const auto& entry, int s) { return entry.first < s; });
    if (it != counts.end() && it->first == status) {
        ++it->second;
    } else {
        counts.insert(it, {status, 1});
    }
}

void request_recorder::end_measured(std::int64_t t) {
    --measured_inflight_;
    stats_.last_end_ns = std::max(stats_.last_end_ns, t);
}

void request_recorder::finish() {
    if (options_.steady_throughput && stats_.started > 1 && last_intended_ns_ > stats_.first_intended_ns) {
        stats_.steady_window_s = static_cast<double>(last_intended_ns_ - stats_.first_intended_ns) / 1e9;
        stats_.steady_completed = static_cast<std::uint64_t>(
            std::count_if(completion_ends_.begin(), completion_ends_.end(), [&](std::int64_t t) {
                return t >= stats_.first_intended_ns && t <= last_intended_ns_;
            }));
    }
    live_.take_all([&](std::uint64_t index, const request_timeline& r) {
        if (!r.warmup) ++stats_.unfinished;
        logged_end end;
        end.status = "unfinished";
        end.output_tokens = r.chunks;
        for (request_sink* s : sinks_) s->ended(index, r, end);
    });
    measured_inflight_ = 0;
}

}  // namespace openloop
