#pragma once
// Whether a run is VALID, and why not (MLPerf LoadGen's rule: every run says
// so). Every validity rule lives here: the run cut short, events lost, nothing
// completed, the error rate over its bound, the generator behind its schedule
// or smoothing its bursts.
// How failures are counted for these rules (openloop's own cancellations, and
// requests it had no descriptor to send, are not the server's errors) is
// decided once, by count_errors.

#include "openloop/measure/run_stats.hpp"
#include "openloop/results/run_context.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

// The failures a run's error rate counts. Requests openloop cancelled itself
// (Ctrl-C's grace, the drain or an overload abort ran out) are its own doing,
// not the server's, and are kept apart.
struct error_tally {
    std::uint64_t failed = 0;     // failed requests but openloop's own cancellations and unsent
    std::uint64_t cancelled = 0;  // cancelled by openloop (cancelled and cancelled_at_end)
    std::uint64_t unsent = 0;     // never sent: openloop out of file descriptors (fd_limit)
    std::uint64_t ended = 0;      // completed + failed
    double rate = 0;              // failed / ended; 0 when nothing ended
};

error_tally count_errors(const run_stats& stats);

struct verdict {
    bool valid = true;
    std::vector<std::string> reasons;  // one short line each, the most telling first
    bool too_many_errors = false;      // the error rate exceeded max_error_rate
    // No event lost, no request kept back by openloop's file-descriptor limit,
    // and (open loop) the schedule lag within its bound.
    bool generator_ok = true;
};

// Invalid when the run was cut short, when any event was lost, when more
// requests failed than max_error_rate allows (reported when something
// completed: otherwise the next reason says it all), when nothing completed,
// or (open loop only) when schedule-lag p99 exceeds lag_bound_ms or the sends
// smoothed the schedule's bursts (results/arrival_shape).
verdict judge(const run_stats& stats, const run_context& context);

}  // namespace openloop
