#pragma once
// When a sweep stage has seen enough to be judged, so it may stop sending.
// Pure: the run's driver feeds it the in-flight count on a fixed step from the
// first measured send and the E2E of each measured request that completed.
//
// A stage first meets its minimums: --stage-duration, --min-samples, and
// `correlation_times` times its E2E (near capacity a stable queue wanders on
// many times the scale of its latency, so a window of a few E2Es cannot tell
// wander from growth). Then it runs on until the queue verdict (queue_trend)
// is decided: growth beyond doubt, or growth at the trend's resolution (5 %
// of the realised rate) excluded. A stationary queue's wander is bounded
// while an overloaded one gains every second, so waiting always decides; the
// extension is capped at
// `max_extension` times the minimum window, and the report says when a stage
// ended undecided.

#include "openloop/results/queue_trend.hpp"

#include <cstdint>
#include <vector>

namespace openloop {

struct stage_end_options {
    double min_s = 0;                 // --stage-duration
    std::uint64_t min_requests = 0;   // --min-samples
    double rate = 0;                  // offered requests per second (nominal; the realised rate decides)
    double base_e2e_s = 0;            // the low-load E2E (the first stage's p50); 0: unknown
    double step_s = 0.1;              // the in-flight sampling step
    double correlation_times = 20;    // the window spans at least this many E2Es
    double max_extension = 4;         // at most this many times the minimum window
    double check_every_s = 1;         // how often the verdict is recomputed once the minimums are met
};

class stage_end {
public:
    explicit stage_end(const stage_end_options& o);

    void sample(std::size_t in_flight);
    void completed(double e2e_s);

    // May the stage stop sending, elapsed_s after its first measured send,
    // with `sent` measured requests sent?
    bool done(double elapsed_s, std::uint64_t sent);
    bool decided() const { return decided_; }  // false: it ended at the cap (or has not ended)

    // The queue series' correlation time so far (queue_correlation_s), as
    // make_stage_row judges the stage with it.
    double correlation_s() const;

private:
    stage_end_options o_;
    std::vector<double> samples_;
    double e2e_sum_ = 0;
    std::uint64_t e2e_count_ = 0;
    double minimum_met_s_ = -1;  // when every minimum was first met
    double next_check_s_ = 0;
    bool decided_ = false;
};

// The early stop for growth is stricter than the verdict's own alpha: a
// stage looked at every second would otherwise stop on the first chance
// excursion of a stable queue.
inline constexpr double stage_end_growth_alpha = 0.001;

}  // namespace openloop
