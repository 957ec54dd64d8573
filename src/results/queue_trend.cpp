#include "openloop/results/queue_trend.hpp"

#include "openloop/results/number_text.hpp"

#include <boost/math/distributions/normal.hpp>
#include <boost/math/distributions/students_t.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace openloop {

namespace {

double mean_of(const std::vector<double>& v, std::size_t from, std::size_t to) {
    double sum = 0;
    for (std::size_t i = from; i < to; ++i) sum += v[i];
    return to > from ? sum / static_cast<double>(to - from) : 0;
}

std::string p_text(double p) { return p < 0.001 ? std::string("p < 0.001") : "p = " + fmt("%.3f", p); }

}  // namespace

double queue_correlation_s(double mean_e2e_s, double base_e2e_s) {
    return base_e2e_s > 0 ? std::min(mean_e2e_s, 2 * base_e2e_s) : mean_e2e_s;
}

queue_trend judge_queue(const std::vector<double>& samples, double step_s, double correlation_s,
                        const queue_trend_options& o) {
    if (!(step_s > 0) || !(correlation_s >= 0) || !std::isfinite(correlation_s)) {
        throw std::invalid_argument("judge_queue: the sample step must be positive and the correlation time finite");
    }
    queue_trend q;
    const std::size_t n = samples.size();
    const std::size_t third = n / 3;
    q.window_s = static_cast<double>(n) * step_s;
    q.mean = mean_of(samples, 0, n);
    q.first = mean_of(samples, 0, third);
    q.last = mean_of(samples, n - third, n);
    if (n < 2 * o.min_batches) {
        q.evidence = "in flight " + fmt("%.1f", q.mean) + " over " + fmt("%.1f", q.window_s) +
                     " s: too few samples for a trend";
        return q;
    }
    // Batch means, as many as correlation times fit within [min, max]: the
    // spread of each third's batch means around their own third's mean.
    const double fit = correlation_s > 0 ? q.window_s / correlation_s : static_cast<double>(o.max_batches);
    std::size_t batches = std::clamp<std::size_t>(static_cast<std::size_t>(fit), o.min_batches, o.max_batches);
    batches -= batches % 3;
    const std::size_t per = n / batches;
    std::vector<double> m(batches);
    for (std::size_t b = 0; b < batches; ++b) m[b] = mean_of(samples, b * per, (b + 1) * per);
    const std::size_t k = batches / 3;
    double within = 0;  // pooled variance of a batch mean, from the first and last thirds
    for (const std::size_t from : {std::size_t{0}, batches - k}) {
        const double centre = mean_of(m, from, from + k);
        for (std::size_t b = from; b < from + k; ++b) within += (m[b] - centre) * (m[b] - centre);
    }
    const double df = static_cast<double>(2 * (k - 1));
    within /= df;
    const double var_batches = 2 * within / static_cast<double>(k);
    // Near capacity a stable queue wanders for far longer than one E2E, so
    // batches one E2E long are not independent and their spread understates
    // the noise. The floor is the worst case of positive correlation: each
    // third's mean as noisy as one sample (the raw variance around the
    // fitted line), no reduction for averaging.
    double sxx = 0, sxy = 0;
    const double tm = static_cast<double>(n - 1) / 2;
    for (std::size_t i = 0; i < n; ++i) {
        sxx += (static_cast<double>(i) - tm) * (static_cast<double>(i) - tm);
        sxy += (static_cast<double>(i) - tm) * (samples[i] - q.mean);
    }
    const double slope = sxy / sxx;
    double raw = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const double r = samples[i] - q.mean - slope * (static_cast<double>(i) - tm);
        raw += r * r;
    }
    raw /= static_cast<double>(n - 2);
    const double var_diff = std::max(var_batches, 2 * raw);
    q.judged = true;
    q.batches = batches;
    q.growth = q.last - q.first;
    if (var_diff <= 0) {
        q.p = q.growth > 0 ? 0 : 1;  // a noiseless series: its change is its trend
    } else {
        // The floor is no estimate from the batches: judge it as known (normal).
        const double z = q.growth / std::sqrt(var_diff);
        q.p = var_batches >= 2 * raw ? boost::math::cdf(boost::math::complement(boost::math::students_t(df), z))
                                     : 0.5 * std::erfc(z / std::sqrt(2.0));
    }
    const bool material = q.growth >= o.min_growth;
    q.growing = q.p < o.alpha && material;
    q.growth_sd = std::sqrt(std::max(0.0, var_diff));
    // Overload by `resolution` would gain that share of the rate every second
    // between the thirds' centres, two thirds of the window apart.
    const double overload_growth = o.resolution * o.rate * 2 * q.window_s / 3;
    const double z = boost::math::quantile(boost::math::complement(boost::math::normal(), o.alpha));
    q.overload_excluded = o.rate > 0 && q.growth + z * q.growth_sd < overload_growth;
    const std::string span = fmt("%.1f", q.first) + " → " + fmt("%.1f", q.last) + " over " + fmt("%.0f", q.window_s) + " s";
    if (q.growing) {
        q.evidence = "in flight grew " + span + " (" + p_text(q.p) + ")";
    } else if (q.overload_excluded) {
        q.evidence = "in flight " + span + ", no significant growth (" + p_text(q.p) + "; " +
                     fmt("%.0f", o.resolution * 100) + " % overload excluded)";
    } else {
        q.evidence = "in flight " + span + ", no significant growth (" + p_text(q.p) + ")";
    }
    return q;
}

}  // namespace openloop
