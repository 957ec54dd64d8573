#pragma once
// Whether the sends kept the schedule's shape. The lag bound sees requests
// that went late, not bursts smoothed out: a generator whose every send takes
// 30 us never sends two requests 5 us apart, however often the schedule asks
// it to, and its lag can stay small. So the gaps between consecutive sends
// are held against the gaps the schedule asked for: short gaps (under a
// quarter of the mean) must not have become materially rarer (one-sided
// two-proportion test at z > 3.09, p < 0.001, and more than a tenth fewer),
// and the Kolmogorov-Smirnov distance between the two gap distributions is
// reported beside it. Pure.

#include "openloop/measure/histogram.hpp"
#include "openloop/measure/run_stats.hpp"

#include <cstdint>
#include <string_view>

namespace openloop {

struct arrival_shape {
    std::uint64_t gaps = 0;        // consecutive pairs of measured sends
    std::int64_t short_ns = 0;     // a quarter of the schedule's mean gap
    double asked_short = 0;        // fraction of the schedule's gaps below short_ns
    double sent_short = 0;         // fraction of the sends' gaps below short_ns
    double z = 0;                  // (asked_short - sent_short) / its standard error
    double ks_distance = 0;        // sup |F_asked - F_sent| over the schedule's gap quantiles
    bool judged = false;           // enough gaps to say (at least min_gaps)
    bool smoothed = false;         // short gaps materially and significantly rarer
};

inline constexpr std::uint64_t arrival_shape_min_gaps = 200;

// asked: the gaps between measured requests' intended send times, in order;
// sent: the gaps between their actual sends (ns).
arrival_shape judge_arrivals(const histogram& asked, const histogram& sent);

// Whether a run's sends can be held against its schedule: an open loop none of
// whose requests waited for a slot (--max-concurrency sends those as requests
// end, not when the schedule says). mode: run_context's "open-loop" or "closed-loop".
bool arrival_shape_applies(const run_stats& stats, std::string_view mode);

}  // namespace openloop
