#include "openloop/run/stage_end.hpp"

#include <algorithm>

namespace openloop {

stage_end::stage_end(const stage_end_options& o) : o_(o) {}

void stage_end::sample(std::size_t in_flight) { samples_.push_back(static_cast<double>(in_flight)); }

void stage_end::completed(double e2e_s) {
    e2e_sum_ += e2e_s;
    ++e2e_count_;
}

double stage_end::correlation_s() const {
    return queue_correlation_s(e2e_count_ > 0 ? e2e_sum_ / static_cast<double>(e2e_count_) : 0, o_.base_e2e_s);
}

bool stage_end::done(double elapsed_s, std::uint64_t sent) {
    if (minimum_met_s_ < 0) {
        // Until a measured request completed, its E2E is longer than the window so far.
        const bool met = elapsed_s >= o_.min_s && sent >= o_.min_requests && e2e_count_ > 0 &&
                         elapsed_s >= o_.correlation_times * correlation_s();
        if (!met) return false;
        minimum_met_s_ = elapsed_s;
    }
    if (o_.rate <= 0 || elapsed_s >= o_.max_extension * minimum_met_s_) return true;
    if (elapsed_s < next_check_s_) return false;
    next_check_s_ = elapsed_s + o_.check_every_s;
    // The rate the arrivals realised, as the stage row judges it: a Poisson
    // stage of a few hundred requests strays several percent from its nominal rate.
    queue_trend_options qo;
    qo.rate = elapsed_s > 0 && sent > 1 ? static_cast<double>(sent - 1) / elapsed_s : o_.rate;
    const queue_trend q = judge_queue(samples_, o_.step_s, correlation_s(), qo);
    decided_ = q.judged && ((q.growing && q.p < stage_end_growth_alpha) || (!q.growing && q.overload_excluded));
    return decided_;
}

}  // namespace openloop
