#pragma once
// What a run measured for one SLO, read from the typed run result: the
// latency statistic it limits (in ms) or the error rate as the verdict counts
// it. check_slo's rule (observed <= limit; nothing observed fails) decides.

#include "openloop/results/run_result.hpp"
#include "openloop/results/slo.hpp"

#include <optional>

namespace openloop {

// The histogram an SLO's metric (ttft, tpot, itl, icl, e2e, lag) names;
// nullptr for error_rate or an unknown metric.
const histogram* slo_histogram(const run_stats& stats, const slo& s);

// Empty when the run has no such number (e.g. no request produced two
// tokens, so no TPOT).
std::optional<double> observed(const slo& s, const run_result& result);

slo_check check_slo(const slo& s, const run_result& result);

}  // namespace openloop
