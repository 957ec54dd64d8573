#pragma once
// When a run's schedule starts (its instant 0). Without --start-at, after a
// short lead-in from now, for the spare connections to open. With it, at that
// instant of the wall clock, so that the shards of a run (load/shard.hpp), on
// one host or many, line their schedules up; the run times everything on the
// monotonic clock, so the wall instant is mapped onto it with the offset
// between the two clocks, read together once. A run that is ready only after
// the instant starts at once and says how late it was. The offset goes into
// the results, so `openloop merge` can put every shard's requests on one
// (wall) clock. Pure: the clocks are read by the caller.

#include <cstdint>
#include <string_view>

namespace openloop {

struct start_clock {
    std::int64_t start_at_ns = -1;          // --start-at, ns since 1970; -1: none
    std::int64_t wall_minus_steady_ns = 0;  // system_clock - steady_clock
    std::int64_t origin_steady_ns = 0;      // the schedule's instant 0 on the steady clock
    std::int64_t late_ns = 0;               // how long after start_at the run could start

    std::int64_t origin_wall_ns() const { return origin_steady_ns + wall_minus_steady_ns; }
};

start_clock plan_start(std::int64_t start_at_ns, std::int64_t wall_minus_steady_ns, std::int64_t now_steady_ns,
                       std::int64_t lead_in_ns);

// --start-at's value as ns since 1970: RFC 3339 ("2026-12-03T10:00:00Z",
// "2026-12-03T11:00:00.5+01:00"), "@SECONDS" since 1970, or "+DURATION"
// from now_wall_ns ("+30s", "+2m"). Throws std::invalid_argument saying
// which forms are accepted.
std::int64_t parse_start_at(std::string_view text, std::int64_t now_wall_ns);

}  // namespace openloop
