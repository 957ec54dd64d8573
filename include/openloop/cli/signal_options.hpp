#pragma once
// The options that watch the server beside the load, shared by run, sweep
// and soak: --scrape, --scrape-metric, --server-pid, --metrics-listen,
// --metrics-linger.

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

// After the results: o.live keeps serving the final figures for
// o.metrics_linger_s, so a Prometheus scraping every 15 s sees the end of the
// run; SIGINT or SIGTERM ends the wait at once.
void linger_live_metrics(const run_options& o);

}  // namespace openloop
