#pragma once
// What each stage of a sweep runs, as a function of the sweep's options and
// what the stages before it measured: the stage's own run options (rate or
// concurrency, bounds, warm-up, drain, overload abort, fresh arrivals and
// prompts, its directory), made whole from the sweep's base options and never
// rewritten after. Pure: no files, no clocks.

#include "openloop/run/runner.hpp"
#include "openloop/run/sweep_runner.hpp"

#include <cstddef>
#include <cstdint>
#include <string>

namespace openloop {

// The measured requests each stage needs at least: --min-samples, else enough
// for the highest percentile any SLO judges (p99 when there are none).
std::uint64_t stage_min_samples(const sweep_options& sweep);

// What the stages before decided for this one.
struct stage_inputs {
    std::size_t index = 0;
    double rate = 0;             // open loop: offered requests/s
    int concurrency = 0;         // closed loop: workers (> 0)
    double warmup_s = 0;         // next_warmup_s of the stages so far
    double e2e_base_s = 0;       // the first stage's E2E p50: the low-load latency (0 before it ran)
    std::int64_t start_at_ns = -1;  // the schedule's start on the wall clock; -1: when ready
};

struct stage_plan {
    run_options options;
    std::string dir;  // stage-NN-RATEps or stage-NN-cN, under the sweep's --out
};

// Stage `in.index`'s run: the sweep's base options with its rate (or
// concurrency), its bounds (at least stage_s and min_samples), its warm-up,
// its queue-decided end (open loop, unsharded), its drain and overload abort.
// A sharded sweep's part goes under the stage's directory, shard by shard.
stage_plan plan_stage(const sweep_options& sweep, std::uint64_t min_samples, const stage_inputs& in);

// The next stage's warm-up: after a good stage, long enough to cover its latency
// (1.5 x E2E p90, within the sweep's warm-up and 60 s) so the next measured
// window starts in steady state; after a bad one, unchanged.
double next_warmup_s(const sweep_options& sweep, double warmup_s, bool good, double e2e_p90_s);

}  // namespace openloop
