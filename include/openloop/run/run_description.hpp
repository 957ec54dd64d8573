#pragma once
// How a run was driven, in the terms summary.json and the table use: the
// run_context the runner fills before its first request (run.json, for
// `openloop report` to rebuild an unfinished run) and completes after.

#include "openloop/results/run_context.hpp"
#include "openloop/run/run_plan.hpp"

#include <string>

namespace openloop {

// offered_rate: what a trace replay offered, measured; 0 before the run.
run_context describe_run(const run_plan& plan, double offered_rate);

}  // namespace openloop
