#pragma once
// Two runs side by side: every metric with its absolute and relative change
// and a verdict (better, worse, within noise) from a confidence interval of
// the change. Latency and error-rate intervals come from a bootstrap over the
// runs' request logs (each run resampled request by request); throughput
// intervals from the counts (completions in an open-loop run vary as Poisson
// counts, so a rate's standard error is rate / sqrt(count)). The intervals
// are 99 %: a dozen metrics at 95 % would call one of them changed in every
// other comparison of two identical runs. A change is significant only when
// its interval also clears a band of min_change (1 %) of the base value: two
// runs of one seeded schedule differ by a few hundredths of a percent in
// TPOT, with so little spread that any interval excludes zero. Gates (`--fail-on`) fail only on a
// significant change beyond their threshold. Pure: samples in, figures out.

#include "openloop/base/json_text.hpp"
#include "openloop/results/rebuild.hpp"
#include "openloop/results/run_context.hpp"
#include "openloop/results/workload_match.hpp"

#include <boost/json/object.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// What compare reads of one run.
struct compared_run {
    std::string name;                       // as given on the command line
    std::vector<request_sample> requests;   // measured requests that ended
    double duration_s = 0;                  // the run's window
    std::optional<run_context> context;     // its run.json; none: its workload cannot be checked
    std::vector<std::string> models;        // a mixed run's model names, by request_sample::model
};

// What differs between the two runs (workload_match.hpp), said before the
// table: another target is compare's use; another workload makes every
// verdict weigh the load as well as the server, so gates are refused unless
// allowed.
struct run_match {
    std::string unchecked;  // why the workloads could not be checked, e.g. "a has no run.json"; empty: checked
    std::vector<run_difference> differences;
    bool checked() const { return unchecked.empty(); }
    bool workloads_differ() const { return any_workload_difference(differences); }
};
run_match match_runs(const compared_run& base, const compared_run& now);
// The differences in Markdown, for before a comparison's table; empty when nothing differs.
std::string run_match_markdown(const run_match& match, bool allow_mismatch);
// workloads_checked, workloads_differ, differences and allow_mismatch, into a comparison's JSON.
void add_run_match_json(boost::json::object& out, const run_match& match, bool allow_mismatch);

// now - base; 0 when they are equal, infinite both (past requests that never answered in each).
inline double latency_change(double now, double base) { return now == base ? 0.0 : now - base; }

// too_few: a percentile with fewer than 5 requests past it in a run (p99 of
// under 500), whose interval would claim what the data cannot show.
enum class change_verdict { better, worse, within_noise, no_data, too_few };

struct metric_change {
    std::string name;        // e.g. "ttft_p99"
    std::string unit;        // "ms", "req/s", "tok/s" or "" (a fraction)
    bool lower_is_better = true;
    double base = 0, now = 0;
    double low = 0, high = 0;  // 99 % interval of now - base
    std::string method;        // "bootstrap" or "poisson"
    change_verdict verdict = change_verdict::no_data;
    // An infinite latency (past a request that never answered): no change when both are, -100 %
    // when only the base was.
    double change() const { return latency_change(now, base); }
    double relative() const {
        if (now == base || base == 0) return 0;
        return std::isinf(base) ? -1 : (now - base) / base;
    }
    bool significant() const { return verdict == change_verdict::better || verdict == change_verdict::worse; }
};

struct compare_options {
    unsigned resamples = 1000;
    std::uint64_t seed = 1;
    double min_change = 0.01;  // relative to base
    bool allow_mismatch = false;  // gates judged across different workloads, as asked
};

// TTFT, TPOT and E2E (mean, p50, p90, p99, in ms), error rate, request and
// output throughput; in that order.
std::vector<metric_change> compare_runs(const compared_run& base, const compared_run& now,
                                        const compare_options& options = {});
std::vector<std::string> compared_metric_names();

// Each model both runs name (mixed runs; the same name in both): its requests compared by
// compare_runs' rules over each run's whole window. Empty unless both runs are mixed.
struct model_changes {
    std::string model;
    std::vector<metric_change> changes;
};
std::vector<model_changes> compare_models(const compared_run& base, const compared_run& now,
                                          const compare_options& options = {});

// --fail-on NAME>+P% or NAME<-P%: fails when NAME changed significantly and
// by more than P % in that direction. NAME{model=M}: model M's change (compare_models).
struct gate {
    std::string text;    // as written
    std::string metric;
    std::string model;   // {model=M}; empty: the runs' totals
    bool above = true;   // '>': fails on a rise past percent; '<': on a fall past it
    double percent = 0;  // signed, as written
};

// Throws std::invalid_argument naming what is wrong and the metric names
// (those of a run comparison unless given).
gate parse_gate(std::string_view text, const std::vector<std::string>& metrics = compared_metric_names());
// The change the gate judges; nullopt when it passes. A model's gate judges that model's
// changes (models: compare_models'), and fails naming a model not in both runs.
std::optional<std::string> gate_failure(const gate& g, const std::vector<metric_change>& changes,
                                        const std::vector<model_changes>& models = {});
// Why g cannot be judged (its metric's percentile has too few requests past
// it), or nothing: such a gate does not fail, and is said not to be judged.
std::optional<std::string> gate_unjudged(const gate& g, const std::vector<metric_change>& changes,
                                         const std::vector<model_changes>& models = {});

std::string_view change_verdict_name(change_verdict v);
// Both end with each model's comparison (compare_models) when both runs are mixed:
// a table per model, and "by_model": {NAME: {metrics}}.
std::string compare_markdown(const compared_run& base, const compared_run& now, const std::vector<metric_change>& changes,
                             const compare_options& options);
boost::json::object compare_json(const compared_run& base, const compared_run& now,
                                 const std::vector<metric_change>& changes, const compare_options& options);

}  // namespace openloop
