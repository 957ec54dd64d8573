#pragma once
// `openloop sweep`: a series of open-loop stages (each a complete run with
// warm-up and a measured window) at increasing offered rates, or a
// closed-loop concurrency ladder, and the capacity report: the SLO knee, the
// saturation knee, and what the knee means in requests, in-flight and users.

#include "openloop/run/runner.hpp"
#include "openloop/results/slo.hpp"

#include <boost/json/object.hpp>

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
    double warmup_s = 5;            // per stage, at least; grows with the last stage's E2E p90
    double cooldown_s = 2;
    std::size_t abort_inflight = 0; // 0: derived from the rate and the low-load latency
    double think_time_s = 30;       // for the users-served estimate
    double follow_ratio = 0.95;     // achieved / offered below this: throughput stopped following
    std::string out_dir;
};

// One stage's row of the report, as sweep.json carries it.
struct sweep_stage {
    boost::json::object row;
    bool good = false;  // every SLO held, throughput followed, nothing aborted, generator valid
};

struct sweep_result {
    std::vector<sweep_stage> stages;
    boost::json::object report;  // sweep.json
    bool interrupted = false;
};

// Runs every stage against options.base.url (already resolved); writes each
// stage's results under out_dir/stage-NN and the sweep report beside them.
sweep_result run_sweep(const sweep_options& options);

// Pure: the stage row from a stage's summary and stats. base_e2e_ms is the
// low-load E2E (the first stage's median; 0 when unknown), which bounds the
// in-flight noise a throughput shortfall is weighed against.
boost::json::object stage_row(std::size_t index, double offered_rate, int concurrency, const run_outcome& outcome,
                              const std::vector<slo>& slos, double follow_ratio, bool& good, double base_e2e_ms = 0);

// Pure: knees and capacity words from the stage rows (any order).
boost::json::object analyse_sweep(std::vector<boost::json::object> rows, const std::vector<slo>& slos,
                                  bool closed_loop, double think_time_s, double follow_ratio);

std::string sweep_markdown(const boost::json::object& report);
std::string sweep_csv(const boost::json::object& report);

// Measured requests a stage needs so the pct-th percentile's 95 % order-statistic
// confidence interval is bounded on both sides (368 for p99).
std::uint64_t samples_for_percentile(double pct);

}  // namespace openloop
