#pragma once
// What the reporter accumulates over a run's measured (non-warm-up) requests:
// counts, token totals and latency histograms. The reporter produces it; the
// results stage (run_result) judges and renders it.

#include "openloop/measure/error_messages.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/measure/histogram.hpp"
#include "openloop/measure/media_stats.hpp"
#include "openloop/measure/model_stats.hpp"
#include "openloop/measure/replay_fidelity.hpp"
#include "openloop/measure/session_stats.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace openloop {

// Input-length buckets for the latency breakdown: [0,128), [128,1024), [1024,4096), [4096,inf).
inline constexpr std::array<int, 4> input_bucket_lower = {0, 128, 1024, 4096};
int input_bucket(int input_tokens);

struct latency_set {
    histogram ttft, tpot, e2e;
    std::uint64_t completed = 0;
};

// A thinking model's answers over the completed requests (request_metrics).
struct reasoning_stats {
    std::uint64_t thinking = 0;        // completed requests that thought (reasoning tokens > 0)
    std::uint64_t ended_thinking = 0;  // ... and never answered: max_tokens ran out while thinking
    std::uint64_t tool_calls = 0;      // completed requests answered with a tool call
    std::int64_t reasoning_tokens = 0, answer_tokens = 0;
    // Where each request's reasoning count came from (reasoning_source); none is the rest.
    std::uint64_t from_usage = 0, from_deltas = 0, from_split = 0, estimated = 0;
    std::uint64_t think_tags = 0;  // completed requests whose thinking was read from <think> tags in the content
};

// Everything the reporter accumulated over the measured (non-warm-up) requests.
struct run_stats {
    histogram ttft, tpot, itl, icl, e2e, lag, connect, ttfb;  // ns (ttfb = time to response headers)
    // Time to first answer token; how long each thinking request thought; ITL
    // of the thinking phase and of the answer (every request's).
    histogram ttfa, reasoning_time, itl_reasoning, itl_answer;
    reasoning_stats reasoning;
    histogram ttft_from_send, e2e_from_send;                 // from the actual send, as closed-loop tools measure
    // --max-concurrency: how long each request that waited client-side for a free slot waited
    // (intended send time to release); its lag counts from the release.
    histogram queue;
    std::uint64_t queued = 0;
    // Gaps between consecutive measured requests: as the schedule asked
    // (intended send times, in order) and as they went out (results/arrival_shape).
    histogram asked_gap, sent_gap;
    std::array<latency_set, 4> by_input;

    std::uint64_t started = 0;    // measured requests sent (warm-up excluded)
    std::uint64_t completed = 0;  // succeeded
    std::uint64_t failed = 0;
    std::uint64_t refused = 0;    // by --max-inflight
    std::uint64_t warmup_started = 0;
    std::array<std::uint64_t, error_class_count> failed_by_class{};
    std::vector<std::pair<int, std::uint64_t>> http_status_counts;  // failures by HTTP status
    std::uint64_t unfinished = 0;  // started but no end event (the run was cut short)
    std::uint64_t lost_events = 0; // events dropped by a full ring (set by the caller)
    error_messages messages;       // the first messages of each kind of failure (set by the caller)

    std::int64_t total_input_tokens = 0;   // of completed requests (client-side counts)
    std::int64_t total_output_tokens = 0;  // server usage where given, else content chunks
    std::int64_t server_prompt_tokens = 0; // usage.prompt_tokens summed, where given
    std::int64_t cached_prompt_tokens = 0;
    std::uint64_t output_from_usage = 0;     // requests whose output count came from usage
    std::uint64_t output_estimated = 0;      // requests counted by content chunks
    std::uint64_t output_uncounted = 0;      // non-streamed answers without usage: no count at all
    std::uint64_t bad_usage = 0;             // completed whose usage was not believed (see request_metrics)
    std::uint64_t itl_token_samples = 0;     // ITL samples from per-chunk token counts
    std::uint64_t itl_chunk_samples = 0;     // ITL samples that are chunk intervals (counts unknown)
    std::uint64_t good = 0;                  // requests meeting every goodput SLO
    std::uint64_t retried_stale = 0;         // sent again on a fresh connection after a pooled one gave nothing

    // Length fidelity of completed requests: what was asked against what the server counted.
    std::uint64_t prompt_checked = 0;         // completed with usage.prompt_tokens
    std::uint64_t prompt_exact = 0;           // ... equal to the intended input length
    std::int64_t prompt_intended_tokens = 0;  // intended input tokens of the checked ones
    std::int64_t output_requested_tokens = 0; // max_tokens summed over completed requests
    std::uint64_t output_at_max = 0;          // completed with exactly max_tokens output tokens
    // Request by request: length errors, and for a trace replay send times per minute and prefix reuse.
    replay_fidelity fidelity;
    // A multi-turn run's turns and sessions (empty otherwise).
    session_stats sessions;
    // A mixed run's (--model a=...,b=...) models, by their index in the list; empty otherwise.
    std::vector<model_stats> by_model;
    // A run that sent images or audio; none otherwise.
    std::optional<media_stats> media;

    std::int64_t first_intended_ns = 0;  // of the first measured request
    std::int64_t last_end_ns = 0;        // of the last measured request to finish
    std::uint64_t max_inflight = 0;

    // With reporter_options::steady_throughput: completions (warm-up included)
    // that ended inside [first measured intended, last measured intended].
    std::uint64_t steady_completed = 0;
    double steady_window_s = 0;
    // With steady_throughput: requests in flight (warm-up ones included: the
    // server's queue) every inflight_step_ns from inflight_origin_ns, the
    // series a sweep judges its queue by.
    std::int64_t inflight_origin_ns = 0;
    std::int64_t inflight_step_ns = 0;
    std::vector<std::uint32_t> inflight_samples;
    double steady_rate() const { return steady_window_s > 0 ? static_cast<double>(steady_completed) / steady_window_s : 0; }

    double duration_s() const;
};

}  // namespace openloop
