#pragma once
// One benchmark run: its setup, the io thread's side (run_driver.hpp: the
// load mode's scheduler, Ctrl-C, drain, overload), the client, the reporter
// thread and the results. `openloop run` is one call; a sweep is many.

#include "openloop/load/arrival.hpp"
#include "openloop/load/media.hpp"
#include "openloop/load/model_mix.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/shard.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/tools.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/measure/reporter.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/run/endpoint.hpp"
#include "openloop/run/environment.hpp"
#include "openloop/run/stage_end.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/watch/server_watch.hpp"
#include "openloop/wire/target.hpp"
#include "openloop/wire/think_tags.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

struct run_options {
    // Where: resolved and parsed by the caller (a sim:PRESET target is started first).
    target_url target;
    std::string target_label;   // as the user gave it, for the report
    endpoint_kind endpoint = endpoint_kind::chat;
    // --no-stream: "stream": false, each answer one JSON body (no TTFT or ITL);
    // embeddings are never streamed, whatever this says.
    bool stream = true;
    std::string model;              // empty: the first id of GET /v1/models
    // --model as a weighted list (its first entry is `model`); one entry when not mixed.
    model_mix models;
    // --images, --image-size, --audio... (cli/media_options); nothing when none are asked.
    media_config media;
    std::vector<std::pair<std::string, std::string>> headers;
    std::string api_key_env = "OPENAI_API_KEY";
    std::string ca_file;
    bool insecure = false;
    std::string request_id_prefix = "openloop-";

    // What each request carries.
    workload_config workload;
    tokenizer_choice tokenizer;     // how lengths in tokens become prompts
    std::shared_ptr<const local_tokenizer> loaded_tokenizer;  // its local file, loaded once by cli/; may be null
    // A signal ended cli/'s steps before the run (the tokenizer's load): the run asks and
    // sends nothing, and ends as interrupted with its results written.
    bool interrupted = false;
    std::int64_t vocab_size = 0;    // --tokenizer ids; 0: from GET /v1/models
    std::string tokenizer_cache;    // calibration cache directory; empty: none
    bool ignore_eos = false;
    double temperature = 0.0;
    std::int64_t sampling_seed = 0;  // sent as "seed"; < 0: not sent
    bool continuous_usage = true;    // ask for usage on every chunk (per-chunk token counts)
    boost::json::object extra_body;  // --extra-body, parsed by cli/: merged into every request body
    // --system-prompt's text (chat; empty: none): the first message of every request, counted in
    // what the server adds around each prompt (the tokenizer's calibration probes carry it).
    std::string system_prompt;
    // --tools and the tool loop's flags (load/tools.hpp); count 0: no tools.
    tool_config tools;
    boost::json::value response_format;  // --response-format, OpenAI's object; null: not sent
    std::string reasoning_effort;        // --reasoning-effort; empty: not sent
    reasoning_parser thinking_parser = reasoning_parser::auto_detect;  // --reasoning-parser: <think> in the content
    // --turns / --conversations with --think-time: each arrival starts a multi-turn session
    // (load/session.hpp), planned once by cli/; null: single requests (or a trace's conversations,
    // run_plan.hpp).
    std::shared_ptr<const session_plan> sessions;
    // A --trace whose rows carry session ids replays them as sessions (trace_sessions.hpp);
    // false: each row a single request, as a sweep's stages send.
    bool trace_sessions = true;

    // When.
    arrival_params arrival;
    // This process's share of one global schedule (load/shard.hpp): rate, --num-requests and
    // warm-up are the whole run's; the requests whose global index is shard.index mod count
    // are sent here.
    shard_spec shard;
    // --start-at: the schedule's instant 0 on the wall clock, ns since 1970 (run/start_clock.hpp);
    // -1: a short lead-in from when the run is ready. Later than start_tolerance_s is invalid.
    std::int64_t start_at_ns = -1;
    double start_tolerance_s = 0.1;
    int concurrency = 0;  // > 0: closed loop with this many workers
    double duration_s = 0;          // measured window; 0: no time bound
    std::uint64_t num_requests = 0; // measured requests; 0: no count bound
    bool all_bounds = false;        // stop when every bound is met (a sweep stage), not the first
    // A sweep stage: sends until stage_end says the window can be judged
    // (its minimums replace duration_s and num_requests).
    std::optional<stage_end_options> stage_end;
    double warmup_s = 0;
    std::uint64_t warmup_requests = 0;
    std::size_t max_inflight = 10'000;
    // > 0: open loop with at most this many in flight; arrivals past it wait client-side in
    // arrival order (vLLM's --max-concurrency), their wait reported as queue time.
    std::size_t max_concurrency = 0;

    // Limits.
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds first_token_timeout{0};
    std::chrono::milliseconds idle_timeout{60'000};
    std::chrono::milliseconds total_timeout{0};
    std::size_t max_body = 256u << 20;
    std::size_t spare_connections = 4;
    std::chrono::milliseconds keep_alive_idle{4'000};  // see client_options::keep_alive_idle
    double grace_s = 10;  // after Ctrl-C, how long in-flight requests may finish
    double drain_s = 0;   // after the last send, how long in-flight requests may finish; 0: default_drain_s (drain.hpp)
    std::size_t overload_inflight = 0;  // abort when more than this many are in flight; 0: never

    // Results.
    std::string out_dir;  // empty: no files
    bool progress = false;
    bool log_chunk_gaps = false;  // --log-chunk-gaps: requests.jsonl lists each request's chunk gaps
    std::string headline;  // --headline: the metric the table and summary.json put first (results/headline.hpp)
    double lag_bound_ms = 1.0;
    double max_error_rate = 0.01;  // a run with more failed requests is INVALID (exit 4)
    goodput_slo slo;
    std::size_t ring_capacity = 1u << 20;
    bool steady_throughput = false;  // see reporter_options::steady_throughput
    boost::json::object config;  // every parameter as given, secrets redacted (goes into summary.json)

    // Watching the server (--scrape, --server-pid): before/after the run into
    // summary.json, and with soak_window > 0 into each window's row.
    watch_options watch;
    std::chrono::nanoseconds soak_window{0};  // a soak: windows.csv/jsonl of this length
    bool window_lines = false;                // ... and a line on stderr per window
    // --metrics-listen: started by the command, shared by a sweep's stages.
    std::string metrics_listen;
    std::shared_ptr<metrics_endpoint> live;
    std::string live_label;  // what the live page says the run is: "run", "soak", a sweep's stage
    double metrics_linger_s = 0;  // --metrics-linger: the endpoint's life after the results
};

struct run_outcome {
    run_result result;         // what summary.json (written under out_dir) and the table render
    bool interrupted = false;  // Ctrl-C / SIGTERM
    bool overloaded = false;   // aborted: in flight exceeded overload_inflight
    // Stopped within seconds: the first requests all failed the same
    // non-retryable way (fail_fast.hpp); the reason is context.partial_reason.
    bool stopped_early = false;
    // A sweep stage (run_options::stage_end) that ran to its longest window
    // without its queue verdict being decided.
    bool stage_undecided = false;
    double stage_window_s = 0;  // how long the stage sent, measured
};

// Whether the run's answers are SSE streams: not with --no-stream, never for embeddings.
inline bool streams(const run_options& o) { return o.stream && o.endpoint != endpoint_kind::embeddings; }

class run_plan;
// Runs a prepared run (prepare.hpp) to completion (or interruption) on the
// calling thread; std::runtime_error for what only the run finds (an --out that
// cannot be made). A SIGINT or SIGTERM from its start on ends it as interrupted,
// results written; a plan interrupted before its schedule sends nothing.
run_outcome run_load(const run_plan& plan);

}  // namespace openloop
