#pragma once
// A mixed run's results by model (run_stats::by_model): summary.json's "by_model"
// object, the table's per-model section, and a model's figure by the names the run's
// totals have (what --threshold ttft_p99{model=NAME}<2s reads). A model's rates share
// the run's window: they add up to the run's. Pure.

#include "openloop/results/run_result.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// The model of that name; nullptr when the run has none (or is not mixed).
const model_stats* find_model(const run_stats& stats, std::string_view name);

// {NAME: {share, started, completed, failed, refused, error_rate, too_many_errors (over
// --max-error-rate), request_throughput,
// output_throughput, request_goodput, goodput_requests, slo_attainment (with --goodput),
// tokens, and mean/median/std/pN/min/max of ttft, tpot, itl, e2el (and ttfa when the run thought)}}.
boost::json::object by_model_json(const run_result& r);

// The table's section: a line per model (requests, share, rates, errors) and its
// TTFT, TPOT, ITL and E2E p50/p90/p99. Empty for a run that is not mixed.
std::vector<std::string> model_lines(const run_result& r);

// A model's value of a threshold metric (FAMILY_STAT of its families, error_rate,
// request_throughput, output_throughput, goodput); nullopt without samples or for a
// metric it does not keep.
std::optional<double> model_value(const run_result& r, const model_stats& m, const std::string& metric);

}  // namespace openloop
