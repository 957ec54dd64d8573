#pragma once
// The capacity report of `openloop sweep`, from its stage rows: the SLO
// knee, the saturation knee (and, open loop, the latency bend as evidence),
// and what the knee means in requests, in flight and users. Pure: the stages
// are run by run/sweep_runner.

#include "openloop/results/knee.hpp"
#include "openloop/results/slo.hpp"
#include "openloop/results/sweep_row.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

struct sweep_knees {
    std::optional<confident_slo_knee> slo;  // empty without --slo
    knee saturation;              // open loop: below the lowest stage whose queue grew
    std::optional<knee> latency;  // open loop: the Kneedle bend of TTFT p50, never called saturation
};

struct capacity_report {
    std::optional<std::size_t> stage;  // the stage the figures are from; empty: no stage qualifies
    std::string basis;                 // "SLO knee" or "saturation knee"
    double sustainable_rps = 0;
    double mean_e2e_s = 0;
    double mean_inflight = 0;
    double think_time_s = 0;
    double users = 0;
    std::string errors;  // where requests failed beyond --max-error-rate; empty: nowhere
    std::string text;    // the whole estimate in words, errors included
};

struct sweep_analysis {
    std::vector<stage_row> stages;  // in rate (or concurrency) order
    sweep_knees knees;
    capacity_report capacity;
};

// Knees and capacity words from the stage rows (any order). Each stage is
// judged again against slos from its row, so the same measured stages can be
// read against other SLOs.
sweep_analysis analyse_sweep(std::vector<stage_row> rows, const std::vector<slo>& slos, bool closed_loop,
                             double think_time_s);

// sweep.json, sweep.md and sweep.csv render this.
struct sweep_report {
    sweep_analysis analysis;
    std::string target;
    bool closed_loop = false;
    std::vector<slo> slos;
    std::uint64_t min_samples = 0;
    double precision = 0;
    bool interrupted = false;
    // The stage an interrupt (Ctrl-C, SIGTERM) cut short: shown as cut, never
    // judged, and not among the analysed stages. Empty when the sweep was
    // interrupted between stages, or not at all.
    std::optional<stage_row> cut;
    boost::json::object config;
};

// An interrupted sweep concludes nothing past the stages it judged: where no
// knee was found, the knee and the capacity words say the sweep was cut there
// instead of "saturation not reached". cut is the stage it was cut in, if any.
void note_interrupted(sweep_analysis& analysis, const std::optional<stage_row>& cut);
// "Interrupted during stage 2 (8 req/s): that stage is cut, not judged; ..."
std::string interruption_text(const sweep_report& report);

// Measured requests a stage needs so the pct-th percentile's 95 % order-statistic
// confidence interval is bounded on both sides (368 for p99).
std::uint64_t samples_for_percentile(double pct);

}  // namespace openloop
