#pragma once
// The Load and Workload groups of run, sweep and soak: when requests are sent
// (arrival, rate, bounds, warm-up, caps, shards, --start-at) and what each
// carries (lengths, prefixes, prompt files, tokenizer, sampling, --extra-body),
// each parsed here into its typed value.

#include "openloop/cli/run_command.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace openloop {

boost::program_options::options_description load_options();
boost::program_options::options_description workload_options();
// With for_sweep, --concurrency is the sweep's list and is left to it. Throw
// usage_error (or input_error) naming the flag and the bad value.
void fill_load(const boost::program_options::variables_map& vm, run_command& cmd, bool for_sweep);
// After fill_load: a run with no bound gets 60 s. Reads the trace flags too (trace_options).
void fill_workload(const boost::program_options::variables_map& vm, run_command& cmd);

}  // namespace openloop
