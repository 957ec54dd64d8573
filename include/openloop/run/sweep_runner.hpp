#pragma once
// `openloop sweep`: a series of open-loop stages (each a complete run with
// warm-up and a measured window) at increasing offered rates, or a
// closed-loop concurrency ladder. Each stage's run result becomes a stage row;
// results/sweep_report turns the rows into the capacity report.

#include "openloop/results/slo.hpp"
#include "openloop/results/sweep_report.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/runner.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

struct sweep_options {
    run_options base;               // target, workload, timeouts; rate and bounds are set per stage
    rate_list rates;                // explicit list or automatic (start, multiply, bisect)
    std::vector<int> concurrency;   // non-empty: a closed-loop ladder instead of rates
    std::vector<slo> slos;
    double precision = 0.05;        // automatic: stop when (first bad - last good) / last good <= this
    double start_rate = 1.0;
    double factor = 2.0;
    double max_rate = 10'000;
    std::size_t max_stages = 24;
    double stage_s = 30;            // measured window per stage, at least
    std::uint64_t min_samples = 0;  // measured requests per stage, at least; 0: enough for a bounded
                                    // 95 % CI of the highest percentile in the SLOs (p99 when none)
    double max_extension = 4;       // open loop: a stage runs on, up to this many times its minimum
                                    // window, until its queue verdict is decided (run/stage_end)
    std::uint32_t rate_block = 50;  // Poisson stages: the count held exact every this many
                                    // expected arrivals (arrival_params::count_block); 0: plain
    double warmup_s = 5;            // per stage, at least; grows with the last stage's E2E p90
    double cooldown_s = 2;
    double barrier_timeout_s = 600;  // sharded (base.shard): how long a shard waits for the others after a stage
    std::size_t abort_inflight = 0; // 0: derived from the rate and the low-load latency
    double think_time_s = 30;       // for the users-served estimate
    double follow_ratio = 0.95;     // achieved / offered below this: throughput stopped following
    std::string out_dir;
};

struct sweep_result {
    sweep_report report;  // sweep.json, sweep.md and sweep.csv render it
    bool interrupted = false;
    std::string stopped_early;  // a stage failed fast: why (the sweep stopped there); empty otherwise
    std::string shards_lost;    // sharded: a shard did not finish a stage in time (the sweep stopped there)
};

// Runs every stage against options.base.target (already resolved), each on the
// sweep's one preparation (prepare.hpp: made from options.base) with the stage's
// options (sweep_plan.hpp); writes each stage's results under out_dir/stage-NN
// and the sweep report beside them.
sweep_result run_sweep(const sweep_options& options, const run_plan& prepared);

}  // namespace openloop
