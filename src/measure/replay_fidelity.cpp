#include "openloop/measure/replay_fidelity.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace openloop {
namespace {

// Beyond any length a server can claim and still be believed as a number.
constexpr std::int64_t magnitude_highest = std::int64_t{1} << 40;
constexpr std::int64_t minute_ns = 60'000'000'000;

std::int64_t magnitude(std::int64_t v) { return v == INT64_MIN ? INT64_MAX : std::llabs(v); }

}  // namespace

signed_histogram::signed_histogram() : neg_(magnitude_highest, 2), pos_(magnitude_highest, 2) {}

void signed_histogram::record(std::int64_t v) noexcept {
    if (v < 0) {
        neg_.record(magnitude(v));
    } else if (v > 0) {
        pos_.record(v);
    } else {
        ++zero_;
    }
}

std::int64_t signed_histogram::percentile(double p) const {
    const std::uint64_t n = count();
    if (n == 0) return 0;
    const double exact_rank = p / 100.0 * static_cast<double>(n);
    const auto rank = std::clamp<std::uint64_t>(static_cast<std::uint64_t>(std::ceil(exact_rank * (1.0 - 1e-12))), 1, n);
    const std::uint64_t negatives = neg_.count();
    if (rank <= negatives) {
        // Rank r from the most negative is rank negatives - r + 1 of the magnitudes, smallest first.
        const std::uint64_t r = negatives - rank + 1;
        return -neg_.percentile(100.0 * static_cast<double>(r) / static_cast<double>(negatives));
    }
    if (rank <= negatives + zero_) return 0;
    const std::uint64_t r = rank - negatives - zero_;
    return pos_.percentile(100.0 * static_cast<double>(r) / static_cast<double>(pos_.count()));
}

std::int64_t signed_histogram::min() const noexcept {
    if (neg_.count() > 0) return -neg_.max();
    if (zero_ > 0) return 0;
    return pos_.min();
}

std::int64_t signed_histogram::max() const noexcept {
    if (pos_.count() > 0) return pos_.max();
    if (zero_ > 0) return 0;
    return -neg_.min();
}

double signed_histogram::mean() const noexcept {
    const std::uint64_t n = count();
    return n == 0 ? 0.0 : (pos_.sum() - neg_.sum()) / static_cast<double>(n);
}

void length_fidelity_stats::record(std::uint64_t request, std::int64_t intended, std::int64_t server) {
    ++checked;
    const std::int64_t error = server - intended;
    if (error == 0) ++exact;
    error_tokens.record(error);
    if (intended > 0) {
        error_basis_pts.record(std::llround(10000.0 * static_cast<double>(error) / static_cast<double>(intended)));
    }
    if (error == 0) return;
    const std::int64_t size = magnitude(error);
    std::size_t at = worst_count;
    while (at > 0 && magnitude(worst[at - 1].server - worst[at - 1].intended) < size) --at;
    if (at >= worst_kept) return;
    if (worst_count < worst_kept) ++worst_count;
    std::copy_backward(worst.begin() + static_cast<std::ptrdiff_t>(at),
                       worst.begin() + static_cast<std::ptrdiff_t>(worst_count - 1),
                       worst.begin() + static_cast<std::ptrdiff_t>(worst_count));
    worst[at] = {request, intended, server};
}

std::int64_t minute_counts::worst_minute() const {
    const std::size_t n = std::max(asked.size(), delivered.size());
    std::int64_t best = -1;
    std::uint64_t best_gap = 0;
    for (std::size_t m = 0; m < n; ++m) {
        const std::uint64_t a = m < asked.size() ? asked[m] : 0;
        const std::uint64_t d = m < delivered.size() ? delivered[m] : 0;
        const std::uint64_t gap = a > d ? a - d : d - a;
        if (best < 0 || gap > best_gap) {
            best = static_cast<std::int64_t>(m);
            best_gap = gap;
        }
    }
    return best;
}

replay_fidelity::replay_fidelity(const std::vector<trace_entry>* entries)
    : entries_(entries != nullptr && !entries->empty() ? entries : nullptr), replay_(entries_ != nullptr) {
    if (entries_) implied_ = implied_reuse(*entries_);
}

std::size_t replay_fidelity::minute_of(std::int64_t t_ns) {
    if (!have_origin_) {
        origin_ns_ = t_ns;
        have_origin_ = true;
    }
    const auto m = static_cast<std::size_t>(std::max<std::int64_t>(0, t_ns - origin_ns_) / minute_ns);
    // Grown per minute of the run, not per request.
    if (m >= minutes_.asked.size()) {
        minutes_.asked.resize(m + 1, 0);
        minutes_.delivered.resize(m + 1, 0);
    }
    return m;
}

void replay_fidelity::asked(std::int64_t intended_ns) {
    if (!replay()) return;
    ++minutes_.asked[minute_of(intended_ns)];
}

std::int64_t replay_fidelity::sent(std::uint64_t request, std::int64_t sent_ns) {
    if (!replay()) return -1;
    ++minutes_.delivered[minute_of(sent_ns)];
    return completed_blocks_.reusable((*entries_)[request % entries_->size()]);
}

void replay_fidelity::cached_by_server(std::uint64_t request) {
    if (replay()) completed_blocks_.add((*entries_)[request % entries_->size()]);
}

void replay_fidelity::completed(const completed_lengths& c) {
    if (c.server_input >= 0) input_.record(c.request, c.intended_input, c.server_input);
    if (c.server_output >= 0) output_.record(c.request, c.intended_output, c.server_output);
    if (!replay()) return;
    ++prefix_.completed;
    prefix_.implied_tokens += implied_reuse_at(*entries_, implied_, c.request);
    if (c.reusable_at_send > 0) {
        prefix_.at_send_tokens += c.reusable_at_send;
        ++prefix_.reusing_at_send;
    }
    if (c.cached >= 0) {
        prefix_.cached_tokens += c.cached;
        ++prefix_.cached_reported;
    }
}

}  // namespace openloop
