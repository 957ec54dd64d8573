#pragma once
// What a run tells its user: the validity verdict, summary.json (vLLM
// `bench serve` key names plus ours, see docs/metrics.md), and the readable
// table printed at the end. The table is built from the summary JSON alone so
// a stored summary.json can be printed again later.

#include "openloop/measure/json_text.hpp"
#include "openloop/measure/run_stats.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <string>
#include <vector>

namespace openloop {

// How the run was driven, and what summary.json embeds verbatim.
struct run_context {
    boost::json::object config;       // every parameter, secrets already redacted
    boost::json::object environment;  // host, cores, versions
    std::string target;               // as shown to the user
    std::string mode = "open-loop";   // or "closed-loop"
    double request_rate = 0;          // offered req/s; 0 = unbounded (closed loop)
    double burstiness = 1.0;
    std::string arrival;              // the schedule in words, e.g. "poisson 2 req/s" or "trace x20"
    int max_concurrency = 0;          // closed-loop workers or --max-inflight; 0 none
    double lag_bound_ms = 1.0;
    double max_error_rate = 0.01;     // failed / ended above this fails the run (--max-error-rate)
    std::string tokenizer = "words";  // how lengths in tokens became prompts (tokenizer.hpp)
    bool partial = false;             // cut short by Ctrl-C/SIGTERM
    std::string partial_reason;
};

// MLPerf-style: a run either is VALID or says, one short line each, why not.
struct verdict {
    bool valid = true;
    std::vector<std::string> reasons;
};

// Invalid when (open loop only) schedule-lag p99 exceeds lag_bound_ms, when
// any event was lost, when nothing completed, when more requests failed than
// max_error_rate allows, or when the run was cut short.
verdict judge(const run_stats& stats, const run_context& context);

// The error-rate reason of judge(), e.g. "error rate 47.06 % exceeds the 1 %
// bound (8 stream_truncated)"; empty when the rate is within the bound.
std::string error_rate_breach(const run_stats& stats, double max_error_rate);

// summary.json: the verdict, every count, throughput and latency family, the
// serialized histograms (mergeable), the aliases to other tools' names, and
// the context.
boost::json::object make_summary(const run_stats& stats, const run_context& context);

// The end-of-run table: first line `VALID` or `INVALID: <first reason>`.
// Missing keys print as "-", so older or hand-edited summaries still print.
std::string format_table(const boost::json::object& summary);

}  // namespace openloop
