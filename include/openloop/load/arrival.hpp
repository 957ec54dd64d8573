#pragma once
// Arrival schedules: the intended send time of every request, as ns offsets
// from the run start, as a pure function of (parameters, seed).
//
// Every kind is a renewal process in "operational time" u (in expected
// arrivals) mapped to wall time through the integrated rate Λ(t) = ∫ rate:
// an arrival at u is sent at t = Λ⁻¹(u). Gaps in u are exactly 1 (constant),
// Exp(1) (Poisson) or Gamma(k, 1/k) (gamma, k = burstiness: mean 1, CV² =
// 1/k). At a fixed rate r this is t = u / r, i.e. gamma gaps of shape k and
// scale 1/(r·k); under a stepped or ramped rate profile it is the exact
// non-homogeneous Poisson process for the Poisson kind.
//
// Times are computed from the accumulated u, never by adding rounded gaps, so
// there is no drift: the n-th constant arrival is at round(n / rate · 1e9).
//
// A shard (shard.hpp) walks this one global schedule and keeps every N-th
// arrival, so the shards together send exactly what one process sends, for
// every kind (independent gamma sub-schedules would superpose to something
// closer to Poisson).

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

namespace openloop {

enum class arrival_kind { constant, poisson, gamma };

// "constant", "poisson", "gamma"; throws std::invalid_argument listing them.
arrival_kind parse_arrival_kind(std::string_view name);
std::string_view to_string(arrival_kind kind);

// A stretch of the run whose rate moves linearly from rate to end_rate
// (equal for a step).
struct rate_segment {
    double duration_s = std::numeric_limits<double>::infinity();  // > 0; infinite only last, and flat
    double rate = 0;      // req/s at the segment start, >= 0
    double end_rate = 0;  // req/s at the segment end, >= 0

    friend bool operator==(const rate_segment&, const rate_segment&) = default;
};

// Comma-separated "RATE:DURATION" steps and "FROM-TO:DURATION" ramps, e.g.
// "10:60,10-50:2m,50:inf"; DURATION is read as every duration is
// (base/quantity.hpp: a bare number is seconds) and may be "inf" for the last
// segment. Throws std::invalid_argument naming the bad item.
std::vector<rate_segment> parse_rate_profile(std::string_view text);

struct arrival_params {
    arrival_kind kind = arrival_kind::poisson;
    double rate = 1.0;        // req/s; used when profile is empty
    double burstiness = 1.0;  // gamma shape k: CV² = 1/k, 1 = Poisson, < 1 burstier
    std::uint64_t seed = 0;
    std::vector<rate_segment> profile;  // when non-empty, replaces rate; the schedule ends with it
    // Poisson only: > 0 holds the count to exactly count_block arrivals in
    // every count_block expected ones (a Poisson process conditioned on its
    // count per block: uniform, sorted, within each block). Bursts inside a
    // block are Poisson's; the rate no longer strays over longer spans. A
    // sweep stage of a few hundred requests would otherwise realise a rate
    // several percent off the one it is judged at.
    std::uint32_t count_block = 0;  // at most max_count_block
};

inline constexpr std::uint32_t max_count_block = 100'000;

class arrival_process {
public:
    // Throws std::invalid_argument on a bad rate, burstiness or profile.
    explicit arrival_process(const arrival_params& params);

    // The next intended send time in ns from the run start,
    // never before the previous one; nullopt once a finite profile is over.
    // Constant arrivals start at 0; random ones after their first gap.
    std::optional<std::int64_t> next_ns();

private:
    double next_u();
    std::optional<double> seconds_at(double u);

    arrival_kind kind_;
    std::mt19937_64 rng_;
    std::exponential_distribution<double> exponential_{1.0};
    std::gamma_distribution<double> gamma_;
    std::vector<rate_segment> segments_;

    std::uint32_t count_block_ = 0;
    std::vector<double> block_;  // the current block's arrivals in u, latest first
    double block_start_u_ = 0;
    std::uint64_t drawn_ = 0;  // arrivals generated so far
    double u_ = 0;             // operational time of the last random arrival
    std::size_t segment_ = 0;
    double segment_start_s_ = 0;
    double segment_start_u_ = 0;
    double segment_end_u_ = 0;
    std::int64_t last_ns_ = 0;
    bool done_ = false;
};

}  // namespace openloop
