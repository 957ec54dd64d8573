#pragma once
// Whether a stage's queue grew: the sweep's one saturation rule, used online
// (the stage verdict the rate planner acts on) and in the capacity report.
// Pure: it takes the in-flight count sampled on a fixed grid over the stage's
// measured window.
//
// Below capacity the number of requests in flight is stationary: it wobbles
// around L = rate x mean E2E. Past capacity it grows by (offered - served) x
// time. The test compares the mean of the window's last third with its first
// (one-sided). The variance of that difference comes from batch means one
// correlation time long (the low-load E2E: the count's correlation time well
// below capacity), floored at the worst case of positive correlation, each
// third's mean as noisy as one sample (the raw variance around the fitted
// line): near capacity a stable queue wanders for far longer than one E2E,
// and batches that short would call its wandering growth. A significant rise
// must also be material (min_growth requests).
//
// Not growing is a verdict only when growth as fast as `resolution` of the
// rate (requests gained per second) is excluded at the same confidence:
// otherwise the window was too short to tell, and the sweep extends the
// stage (run/stage_end).

#include <cstddef>
#include <string>
#include <vector>

namespace openloop {

struct queue_trend_options {
    double alpha = 0.01;            // one-sided significance of the rise
    double min_growth = 2;          // requests the last third holds over the first, at least
    std::size_t min_batches = 9;
    std::size_t max_batches = 30;
    double rate = 0;           // requests per second offered; 0: no overload is excluded
    double resolution = 0.05;  // the overload (share of the rate) that overload_excluded rules out
};

struct queue_trend {
    bool judged = false;   // false: too few samples to test (growing stays false)
    bool growing = false;  // the queue grew: the stage is saturated
    std::size_t batches = 0;
    double window_s = 0;
    double mean = 0;        // in flight over the window
    double first = 0;       // mean in flight over the window's first third
    double last = 0;        // ... and its last third
    double growth = 0;      // last - first: requests the queue gained
    double p = 1;           // one-sided p-value of a rise
    double growth_sd = 0;   // the standard deviation of growth under a stationary queue
    bool overload_excluded = false;  // growth at options.resolution x rate is ruled out
    std::string evidence;   // one line with the numbers, e.g. "in flight grew 3.1 → 14.7 (p < 0.001)"
};

// The in-flight series' correlation time for a stage: its mean E2E, held to
// twice the low-load E2E (base; 0: unknown) so that a backlog's own latency
// does not stretch the batches of the very stage it should convict.
double queue_correlation_s(double mean_e2e_s, double base_e2e_s);

// samples: requests in flight every step_s seconds across the measured
// window; correlation_s: the series' correlation time (the low-load mean
// E2E serves). Throws std::invalid_argument unless step_s > 0 and
// correlation_s >= 0.
queue_trend judge_queue(const std::vector<double>& samples, double step_s, double correlation_s,
                        const queue_trend_options& options = {});

}  // namespace openloop
