#include "openloop/load/arrival.hpp"

#include "openloop/base/quantity.hpp"

#include <algorithm>
#include <functional>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <string>

namespace openloop {

namespace {

[[noreturn]] void invalid(const std::string& what) {
    throw std::invalid_argument(what);
}

// Seconds into a segment at which its integrated rate reaches x, for
// Λ(τ) = b·τ + a·τ²; the form 2x / (b + √(b² + 4ax)) stays accurate when
// a is 0 or tiny, where the textbook root cancels.
double segment_offset(const rate_segment& s, double x) {
    if (x <= 0) {
        return 0;
    }
    const double a = std::isinf(s.duration_s) ? 0.0 : (s.end_rate - s.rate) / (2 * s.duration_s);
    const double b = s.rate;
    const double tau = 2 * x / (b + std::sqrt(std::max(0.0, b * b + 4 * a * x)));
    return std::min(tau, s.duration_s);
}

double segment_mass(const rate_segment& s) {
    return std::isinf(s.duration_s) ? std::numeric_limits<double>::infinity()
                                    : s.duration_s * (s.rate + s.end_rate) / 2;
}

}  // namespace

arrival_kind parse_arrival_kind(std::string_view name) {
    if (name == "constant") {
        return arrival_kind::constant;
    }
    if (name == "poisson") {
        return arrival_kind::poisson;
    }
    if (name == "gamma") {
        return arrival_kind::gamma;
    }
    invalid("unknown arrival kind \"" + std::string(name) + "\" (choose constant, poisson or gamma)");
}

std::string_view to_string(arrival_kind kind) {
    switch (kind) {
    case arrival_kind::constant:
        return "constant";
    case arrival_kind::poisson:
        return "poisson";
    case arrival_kind::gamma:
        return "gamma";
    }
    return "unknown";
}

std::vector<rate_segment> parse_rate_profile(std::string_view text) {
    std::vector<rate_segment> profile;
    std::size_t item = 0;
    while (true) {
        ++item;
        const auto comma = text.find(',');
        const auto part = text.substr(0, comma);
        const auto bad = [&](std::string_view why) {
            invalid("rate profile item " + std::to_string(item) + " \"" + std::string(part) + "\": " +
                    std::string(why));
        };
        const auto colon = part.find(':');
        if (colon == std::string_view::npos) {
            bad("expected RATE:SECONDS or FROM-TO:SECONDS");
        }
        const auto rates = part.substr(0, colon);
        // A '-' right after an exponent marker belongs to the number (1e-3).
        std::size_t dash = std::string_view::npos;
        for (std::size_t i = 1; i < rates.size(); ++i) {
            if (rates[i] == '-' && rates[i - 1] != 'e' && rates[i - 1] != 'E') {
                dash = i;
                break;
            }
        }
        rate_segment s;
        const auto rate = as_number(rates.substr(0, dash));
        if (!rate || *rate < 0) {
            bad("rate must be a finite number >= 0");
        }
        s.rate = s.end_rate = *rate;
        if (dash != std::string_view::npos) {
            const auto end_rate = as_number(rates.substr(dash + 1));
            if (!end_rate || *end_rate < 0) {
                bad("ramp end rate must be a finite number >= 0");
            }
            s.end_rate = *end_rate;
        }
        // A duration as every flag takes one (a bare number is seconds), or inf.
        const auto duration = part.substr(colon + 1);
        if (duration == "inf") {
            s.duration_s = std::numeric_limits<double>::infinity();
        } else {
            try {
                s.duration_s = parse_duration_s(duration, "");
            } catch (const quantity_error& e) {
                bad(std::string("duration: ") + e.what());
            }
            if (!(s.duration_s > 0)) {
                bad("duration must be > 0 or inf");
            }
        }
        profile.push_back(s);
        if (comma == std::string_view::npos) {
            break;
        }
        text.remove_prefix(comma + 1);
    }
    return profile;
}

arrival_process::arrival_process(const arrival_params& params)
    : kind_(params.kind), rng_(params.seed), segments_(params.profile),
      count_block_(params.kind == arrival_kind::poisson ? params.count_block : 0) {
    if (count_block_ > max_count_block) {
        invalid("arrival: count block must be at most " + std::to_string(max_count_block) + " arrivals, got " +
                std::to_string(count_block_));
    }
    block_.reserve(count_block_);
    if (kind_ == arrival_kind::gamma) {
        if (!(std::isfinite(params.burstiness) && params.burstiness > 0)) {
            invalid("arrival: burstiness must be a finite number > 0, got " + std::to_string(params.burstiness));
        }
        gamma_ = std::gamma_distribution<double>(params.burstiness, 1.0 / params.burstiness);
    }
    if (segments_.empty()) {
        if (!(std::isfinite(params.rate) && params.rate > 0)) {
            invalid("arrival: rate must be a finite number > 0 req/s, got " + std::to_string(params.rate));
        }
        segments_.push_back({std::numeric_limits<double>::infinity(), params.rate, params.rate});
    }
    for (std::size_t i = 0; i < segments_.size(); ++i) {
        const auto& s = segments_[i];
        const std::string which = "arrival: profile segment " + std::to_string(i + 1);
        if (!(std::isfinite(s.rate) && s.rate >= 0 && std::isfinite(s.end_rate) && s.end_rate >= 0)) {
            invalid(which + ": rates must be finite and >= 0");
        }
        if (!(s.duration_s > 0)) {
            invalid(which + ": duration must be > 0 s");
        }
        if (std::isinf(s.duration_s) && (i + 1 != segments_.size() || s.rate != s.end_rate || s.rate == 0)) {
            invalid(which + ": only the last segment may last forever, at a constant rate > 0");
        }
    }
    segment_end_u_ = segment_mass(segments_.front());
}

double arrival_process::next_u() {
    const auto n = drawn_++;
    switch (kind_) {
    case arrival_kind::constant:
        // Exact integers in a double up to 2^53 arrivals: no accumulated error.
        return static_cast<double>(n);
    case arrival_kind::poisson:
        if (count_block_ > 0) {
            if (block_.empty()) {
                std::uniform_real_distribution<double> in_block(block_start_u_, block_start_u_ + count_block_);
                for (std::uint32_t i = 0; i < count_block_; ++i) block_.push_back(in_block(rng_));
                std::sort(block_.begin(), block_.end(), std::greater<>());
                block_start_u_ += count_block_;
            }
            u_ = block_.back();
            block_.pop_back();
            break;
        }
        u_ += exponential_(rng_);
        break;
    case arrival_kind::gamma:
        u_ += gamma_(rng_);
        break;
    }
    return u_;
}

std::optional<double> arrival_process::seconds_at(double u) {
    // Segments are half-open in time, so an arrival due exactly at a boundary
    // goes to the next segment with any rate: after a pause (rate 0), not
    // before it, and not at all after the last segment.
    while (u >= segment_end_u_) {
        segment_start_s_ += segments_[segment_].duration_s;
        segment_start_u_ = segment_end_u_;
        if (++segment_ == segments_.size()) {
            return std::nullopt;
        }
        segment_end_u_ = segment_start_u_ + segment_mass(segments_[segment_]);
    }
    return segment_start_s_ + segment_offset(segments_[segment_], u - segment_start_u_);
}

std::optional<std::int64_t> arrival_process::next_ns() {
    if (done_) {
        return std::nullopt;
    }
    const auto seconds = seconds_at(next_u());
    // Past ~292 years the time no longer fits in int64 ns: treat it as the end.
    if (!seconds || *seconds >= 9.2e9) {
        done_ = true;
        return std::nullopt;
    }
    last_ns_ = std::max<std::int64_t>(last_ns_, std::llround(*seconds * 1e9));
    return last_ns_;
}

}  // namespace openloop
