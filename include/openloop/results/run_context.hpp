#pragma once
// How a run was driven: what summary.json embeds verbatim and the bounds its
// verdict applies. The runner fills it; results only read it.

#include <boost/json/object.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

// When a run's schedule started (run/start_clock.hpp): requests.jsonl's
// times are on the host's monotonic clock, and wall_minus_steady_ns puts them
// on its wall clock, where the shards of one run meet.
struct run_clock {
    std::int64_t wall_minus_steady_ns = 0;
    std::int64_t origin_steady_ns = 0;  // the schedule's instant 0; 0: not started yet
    std::int64_t start_at_ns = -1;      // --start-at; -1: none
    double late_ms = 0;                 // started this long after start_at
    double tolerance_ms = 100;          // later than this is invalid

    bool started() const { return origin_steady_ns != 0; }
    std::int64_t origin_wall_ns() const { return origin_steady_ns + wall_minus_steady_ns; }
};

struct run_context {
    boost::json::object config;       // every parameter, secrets already redacted
    boost::json::object environment;  // host, cores, versions
    std::string target;               // as shown to the user
    std::string mode = "open-loop";   // "closed-loop", or "sessions" (multi-turn: sessions arrive open loop)
    double request_rate = 0;          // offered req/s; 0 = unbounded (closed loop)
    double burstiness = 1.0;
    std::string arrival;              // the schedule in words, e.g. "poisson 2 req/s" or "trace x20"
    int max_concurrency = 0;          // closed-loop workers or --max-inflight; 0 none
    double lag_bound_ms = 1.0;
    double max_error_rate = 0.01;     // failed / ended above this fails the run (--max-error-rate)
    std::string tokenizer = "words";  // how lengths in tokens became prompts (load/prompt_builder.hpp)
    // false: every answer was one JSON body (--no-stream, embeddings), so the
    // run has no TTFT, TPOT, ITL or ICL to report, only E2E.
    bool streamed = true;
    std::size_t skipped = 0;          // workload items its source dropped (workload::skipped)
    std::vector<std::size_t> skipped_lines;  // a trace's first skipped rows (line numbers)
    std::string first_skipped;               // and why the first was skipped
    bool partial = false;             // cut short by Ctrl-C/SIGTERM, an overload abort or failing fast
    std::string partial_reason;
    bool stopped_early = false;       // failed fast: the first requests all failed the same non-retryable way
    double drain_s = 0;               // the drain limit applied after the last send; 0: none was armed
    double io_cpu_wait_ms = -1;       // the io thread runnable but waiting for a CPU during the run; -1: unknown
    boost::json::object server_signals;  // before/after the run (run/server_watch); empty: not watched
    std::string headline;             // --headline: the metric printed first (results/headline.hpp); empty: none
    std::string shard;                // "I/N" of a sharded run (load/shard.hpp); empty: not sharded
    run_clock clock;
    // A mixed run's --model list, weights normalized ("a=0.5,b=0.5"); empty: one model.
    std::string model_mix;
    // A run with media: its image and audio flags as recorded and its size buckets; empty: none.
    boost::json::object media;
};

// The clock as summary.json and run.json write it ("start"), and back: an
// object without it (an older file) gives the default.
boost::json::object run_clock_json(const run_clock& clock);
run_clock run_clock_from_json(const boost::json::object& start);

// run.json: the context as a run starts, written before its first request
// so `openloop report` can rebuild the summary of a run that never finished.
boost::json::object run_context_json(const run_context& context);
// Inverse of run_context_json; throws std::invalid_argument naming the bad field.
run_context run_context_from_json(const boost::json::value& json);

}  // namespace openloop
