#pragma once
// One sweep stage's row: what the capacity report needs from the stage's run
// result, typed, and the stage's verdict. Built from the run_result (never
// read back out of JSON); sweep.json carries it (sweep_json.hpp).

#include "openloop/results/queue_trend.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/slo.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

// One latency family of a stage, ms; empty without samples.
struct latency_row {
    std::optional<double> mean, p50, p90, p95, p99, p99_9, max;
    // The 95 % order-statistic confidence intervals of p95 and p99 (from the
    // histogram itself); empty when the stage has too few samples for one.
    std::optional<std::array<double, 2>> p95_ci, p99_ci;

    // stat: mean, p50, p90, p95, p99, p99.9 or max; empty for any other.
    std::optional<double> at(std::string_view stat) const;
};

latency_row make_latency_row(const histogram& h);

struct slo_result {
    std::string slo;  // as written
    std::optional<double> observed;
    bool pass = false;
};

struct stage_row {
    std::size_t index = 0;  // position in rate (or concurrency) order, once analysed
    // The order it ran in (a bisection runs stages out of rate order): the
    // number the progress lines, the directories and the table show.
    std::size_t run = 0;
    std::string dir;        // its results, under the sweep's out_dir
    double warmup_s = 0;
    std::optional<double> offered_rate;  // open loop
    std::optional<int> concurrency;      // closed loop
    // Steady-state throughput (completions inside the send window); the
    // run's own request_throughput includes the drain.
    double achieved_rate = 0;
    double sent_rate = 0;  // arrivals actually sent per second of the window
    std::optional<double> follow_ratio;  // (achieved + failed answers) / sent
    double request_throughput = 0;
    double output_throughput = 0;
    std::uint64_t completed = 0;
    std::uint64_t failed = 0;
    double error_rate = 0;  // as count_errors counts it
    std::vector<std::pair<std::string, std::uint64_t>> errors;  // failures by class, non-zero
    bool too_many_errors = false;
    double goodput = 0;  // achieved x the share of completions meeting every goodput SLO
    std::optional<double> mean_inflight;  // Little's law: achieved x mean E2E
    std::uint64_t samples = 0;
    double duration_s = 0;
    latency_row ttft, tpot, itl, icl, e2e, lag, ttfa;
    bool slo_pass = true;
    std::vector<slo_result> slo_results;
    double deficit = 0;  // (sent - answered) x window: requests still queued
    bool follows = true;  // answered / sent within noise of 1: evidence beside the queue
    queue_trend queue;    // the in-flight trend over the window (open loop)
    bool undecided = false;  // the stage ran to its longest window without a decided queue verdict
    // The queue grew (or, without a judged trend, throughput did not follow):
    // the one saturation rule the planner and the report share.
    bool saturated = false;
    bool aborted = false;      // overloaded: in flight grew past the abort bound
    bool valid = true;         // the run's verdict
    bool generator_ok = true;  // the generator kept its schedule (judged beside the verdict)
    std::string verdict;       // good, overloaded, saturated, errors or slo_fail

    bool good() const { return verdict == "good"; }
    // The stage's x: offered rate (open loop) or concurrency.
    double x() const { return concurrency ? *concurrency : offered_rate.value_or(0); }
    // The latency family an SLO metric names (ttft, tpot, itl, icl, e2e,
    // lag); nullptr for any other.
    const latency_row* latency(std::string_view metric) const;
    // The figure an SLO limits at this stage; empty when the row has none.
    std::optional<double> observed(const slo& s) const;
    // Why the stage is (not) saturated, with the numbers.
    std::string saturation_evidence() const;
};

// Pure: a stage's row from its run result. base_e2e_ms is the low-load E2E
// (the first stage's median; 0 when unknown), which bounds the in-flight
// noise a throughput shortfall is weighed against.
stage_row make_stage_row(std::size_t index, double offered_rate, int concurrency, const run_result& result,
                         bool overloaded, const std::vector<slo>& slos, double follow_ratio, double base_e2e_ms = 0);

// A table cell: the number in format, or "-".
std::string cell(std::optional<double> v, const char* format = "%.1f");
// "25.0 % (30 stream_truncated, 2 http_5xx)": a stage's failures in brief.
std::string error_breakdown(const stage_row& row);

}  // namespace openloop
