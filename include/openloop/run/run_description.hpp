#pragma once
// How a run was driven, in the terms summary.json and the table use: the
// run_context the runner fills before its first request (run.json, for
// `openloop report` to rebuild an unfinished run) and completes after.

#include "openloop/results/run_context.hpp"
#include "openloop/run/runner.hpp"

#include <string>

namespace openloop {

// offered_rate: what a trace replay offered, measured; 0 before the run.
// trace_speed: the speed a replay applies (--trace-speed, or what --rate made it).
run_context describe_run(const run_options& o, const std::string& target, const std::string& model,
                         const std::string& tokenizer, double offered_rate, double trace_speed);

}  // namespace openloop
