#pragma once
// The options that watch the server beside the load, shared by run, sweep
// and soak: --scrape, --scrape-metric, --server-pid, --metrics-listen.

#include "openloop/run/runner.hpp"
#include "openloop/watch/server_watch.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

namespace openloop {

boost::program_options::options_description signal_options();

// Throws usage_error naming the flag (a bad URL, a pid that is not a number or not running).
watch_options fill_signals(const boost::program_options::variables_map& vm);

// Binds and starts o.live for o.metrics_listen (nothing when empty); a bad
// address or a bind failure is a usage_error naming --metrics-listen.
void start_live_metrics(run_options& o);

}  // namespace openloop
