#include "openloop/results/arrival_shape.hpp"

#include <algorithm>
#include <cmath>

namespace openloop {

arrival_shape judge_arrivals(const histogram& asked, const histogram& sent) {
    arrival_shape a;
    a.gaps = std::min(asked.count(), sent.count());
    if (asked.count() == 0 || sent.count() == 0) return a;
    a.short_ns = static_cast<std::int64_t>(asked.mean() / 4);
    const auto below = [&](const histogram& h) {
        return a.short_ns > 0 && h.count() > 0
                   ? static_cast<double>(h.count_at_or_below(a.short_ns - 1)) / static_cast<double>(h.count())
                   : 0.0;
    };
    a.asked_short = below(asked);
    a.sent_short = below(sent);
    const double n1 = static_cast<double>(asked.count()), n2 = static_cast<double>(sent.count());
    const double pooled = (a.asked_short * n1 + a.sent_short * n2) / (n1 + n2);
    const double se = std::sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2));
    a.z = se > 0 ? (a.asked_short - a.sent_short) / se : 0.0;
    for (int i = 1; i < 200; ++i) {
        const std::int64_t v = asked.percentile(i / 2.0);
        const double fa = static_cast<double>(asked.count_at_or_below(v)) / n1;
        const double fs = static_cast<double>(sent.count_at_or_below(v)) / n2;
        a.ks_distance = std::max(a.ks_distance, std::abs(fa - fs));
    }
    a.judged = a.gaps >= arrival_shape_min_gaps;
    a.smoothed = a.judged && a.z > 3.09 && a.sent_short < 0.9 * a.asked_short;
    return a;
}

bool arrival_shape_applies(const run_stats& stats, std::string_view mode) {
    return mode == "open-loop" && stats.queued == 0;
}

}  // namespace openloop
