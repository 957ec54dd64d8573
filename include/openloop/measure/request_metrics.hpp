#pragma once
// How one request's timeline becomes the metrics DESIGN.md defines (t0 = the
// intended send time): TTFT, E2E, TPOT, ITL and ICL samples, the output token
// count and its source, a thinking model's time to first answer token and
// reasoning tokens, and whether the request meets the goodput SLO. Pure:
// the reporter thread assembles timelines from events and calls these when a
// request ends; nothing here knows about threads, rings or files.

#include "openloop/measure/run_stats.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace openloop {

// Per-request thresholds for goodput (DistServe's definition): a request is
// "good" when it succeeded and meets every threshold given (< 0: not set).
struct goodput_slo {
    double ttft_ms = -1;
    double ttfa_ms = -1;  // time to first answer token
    double tpot_ms = -1;
    double itl_ms = -1;  // applied to the request's own worst inter-token gap
    double e2e_ms = -1;
};

// One interval between successive content chunks and the tokens the later
// chunk carried (< 1: unknown).
struct chunk_gap {
    std::int64_t ns;
    std::int64_t tokens;  // 64-bit: whatever the server's usage deltas claim
    bool reasoning;       // the later chunk was thinking: the gap is the reasoning phase's
};

// What one request's events told so far. Times are steady-clock ns; -1: not yet.
struct request_timeline {
    std::int64_t intended = 0;
    std::int64_t connect = -1;  // duration, ns (only when it opened a connection)
    std::int64_t released = -1;  // left the client-side queue (--max-concurrency); -1: never waited
    std::int64_t sent = -1;
    std::int64_t headers = -1;
    std::int64_t first_chunk = -1;
    std::int64_t last_chunk = -1;
    // A thinking model: chunks that only thought (chunk_reasoning), and the
    // first chunk of the answer (text or a tool call) after them.
    std::int64_t first_answer = -1;
    std::int64_t first_reasoning = -1;
    std::int64_t last_reasoning = -1;
    std::int64_t reasoning_chunks = 0;
    // Chunks that carried thinking and answer both: the step that ended the thinking. Their
    // usage deltas are divided by shared_reasoning_tokens (event.hpp); a guess unless the chunk
    // carried two tokens.
    std::int64_t shared_chunks = 0;
    bool shared_guessed = false;
    std::int64_t reasoning_delta_tokens = 0;   // usage deltas the thinking (and shared chunks' thinking) carried
    bool reasoning_deltas_known = true;        // ... every one of them known
    bool think_tags = false;                   // its thinking was read from <think> tags in the content
    bool tool_call = false;                    // the answer was a tool call (done_tool_call)
    std::int64_t usage_reasoning = -1;         // the usage's reasoning tokens (a reasoning_usage event)
    std::int64_t max_itl = 0;  // worst per-token gap, for the ITL SLO
    std::int64_t max_gap = 0;  // worst chunk interval: the ITL SLO's gap when usage is bad
    std::int64_t chunks = 0;
    std::int32_t input_tokens = 0;
    std::int32_t max_tokens = 0;
    std::int32_t http_status = 0;
    std::int64_t prompt_tokens = -1;  // the server's usage.prompt_tokens
    // An answer that was one JSON body (done_unstreamed): no chunks, so no
    // TTFT or ITL; E2E ends when the body did (answered).
    bool streamed = true;
    std::int64_t answered = -1;
    std::int64_t reusable_at_send = -1;  // replay: prompt tokens completed requests' blocks covered when sent
    bool warmup = false;
    bool retried = false;
    std::uint8_t model = 0;  // its entry in the run's --model list
    // What it carried beside its text (its media event); body_bytes < 0: none came.
    std::int32_t images = 0, audios = 0, bucket = -1;
    std::int64_t body_bytes = -1;
    bool has_media() const { return body_bytes >= 0; }
    // Kept until the request ends: a failed request must add no samples.
    std::vector<chunk_gap> gaps;

    // A content chunk arrived at t_ns carrying `tokens` (< 1: unknown); reasoning: it only thought;
    // shared_reasoning_chars > 0: of its chars, those that were thinking, before its answer.
    void add_chunk(std::int64_t t_ns, std::int64_t tokens, bool reasoning = false, std::int64_t shared_reasoning_chars = 0,
                   std::int64_t chars = 0);
};

// The server's usage figures at the end of a stream (-1: not given).
struct stream_usage {
    std::int64_t completion_tokens = -1;
    std::int64_t prompt_tokens = -1;
    std::int64_t cached_tokens = -1;
    bool bad = false;  // the response reader distrusted the stream's usage (done_bad_usage)
    std::int64_t reasoning_tokens = -1;  // usage.completion_tokens_details.reasoning_tokens
};

// Where a request's reasoning token count came from: the usage's
// reasoning_tokens; the continuous usage deltas of its thinking chunks; the same
// with a chunk that carried thinking and answer both divided by its characters
// (an estimate, within that chunk's tokens); its thinking chunks counted (an
// estimate); or no thinking was seen.
enum class reasoning_source : std::uint8_t { none, usage, usage_deltas, usage_deltas_split, chunks };
std::string_view reasoning_source_name(reasoning_source s);

// How far usage.completion_tokens may exceed max_tokens before it is not
// believed: max(16, 10 % of max_tokens). Servers count a stop or EOS token, or
// a tool-call wrapper, beyond the limit; no server overshoots by more.
std::int64_t usage_margin(std::int64_t max_tokens);

// A completed request's metrics, ns; -1 where a metric is undefined.
struct request_metrics {
    std::int64_t ttft = -1;  // first content chunk - t0 (no content, or not streamed: undefined)
    std::int64_t e2e = -1;   // last content chunk - t0; not streamed: body end - t0
    std::int64_t e2e_end = -1;  // the instant E2E ends at: the last content chunk, or the body's end
    std::int64_t tpot = -1;  // (E2E - TTFT) / (output_tokens - 1), for output_tokens > 1; streamed only
    // usage.completion_tokens where given, else content chunks; a non-streamed
    // answer without usage has no count (0, output_counted false).
    std::int64_t output_tokens = 0;
    bool output_from_usage = false;
    bool output_counted = true;
    // The usage was not believed (stream_usage::bad, or completion_tokens
    // beyond max_tokens + usage_margin when max_tokens > 0): output_tokens
    // are content chunks and ITL uses chunk intervals unweighted.
    bool bad_usage = false;

    // Time to first answer token: the first chunk that was not only thinking
    // (answer text or a tool call) - t0; equals ttft for a model that does not
    // think; undefined when the answer never came.
    std::int64_t ttfa = -1;
    // How long it thought: first thinking chunk to the first answer chunk (or
    // to the last thinking chunk when no answer came); -1 when no thinking streamed.
    std::int64_t reasoning = -1;
    std::int64_t reasoning_tokens = 0;
    reasoning_source reasoning_from = reasoning_source::none;
    std::int64_t answer_tokens = 0;  // output_tokens - reasoning_tokens, never below 0
    // It thought and never answered: max_tokens ran out while it thought.
    bool ended_thinking = false;
    // ... and streamed: its time to first answer token is infinite, not undefined (record_ttfa).
    bool never_answered = false;
};

request_metrics measure_request(const request_timeline& r, const stream_usage& usage);

// The one rule for a request's time to first answer token, wherever it is recorded (the run,
// a model, a soak window): its TTFA, or an infinite sample when it streamed and never answered
// (infinitely late: every percentile, threshold, SLO and gate past it fails); nothing when it
// was not streamed.
void record_ttfa(histogram& h, const request_metrics& m);

// A threshold that cannot be checked because the request streamed no content
// (no TTFT, no E2E) fails it; TPOT and ITL need more than one token, and a
// request with a single token has nothing to violate them.
bool meets(const goodput_slo& slo, const request_timeline& r, const request_metrics& m);

// A request's ITL samples: each chunk interval divided over the tokens it
// carried, recorded once with the token count as its weight (a claimed 2^31
// tokens costs what 1 does); the interval itself when the count is unknown or
// the usage bad. The run and each soak window record through this one rule.
// phase: every interval, or only those ending in a thinking chunk (reasoning)
// or in an answer chunk (answer: the step from thinking to answering included).
enum class itl_phase : std::uint8_t { all, reasoning, answer };
struct itl_samples {
    std::uint64_t token_samples = 0;
    std::uint64_t chunk_samples = 0;
};
itl_samples record_itl(histogram& itl, const request_timeline& r, bool bad_usage, itl_phase phase = itl_phase::all);

// Adds one completed, measured request to the run: its histograms (ITL by
// record_itl), token totals, length fidelity and goodput counts.
void record_completed(run_stats& stats, const request_timeline& r, const request_metrics& m,
                      const stream_usage& usage, bool good);

}  // namespace openloop
