#pragma once
// Token counts drawn from a distribution, the same for a seed on every
// platform: a request's own random stream and the distributions a length flag
// spells. Pure.

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace openloop {

// One request's own random stream (SplitMix64: one word of state), seeded
// from the run's seed and the request's global index, so its lengths do not
// depend on which requests were drawn before it (shard.hpp).
class request_rng {
public:
    using result_type = std::uint64_t;
    explicit request_rng(std::uint64_t seed) : state_(seed) {}
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() {
        std::uint64_t z = state_ += 0x9e3779b97f4a7c15ULL;
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }

private:
    std::uint64_t state_;
};

// Uniform integer in [0, n) by multiply-shift; the bias is below 2^-32 for any
// n that fits in 32 bits.
template <class Rng>
std::uint64_t below(Rng& rng, std::uint64_t n) {
    return std::uint64_t((static_cast<unsigned __int128>(rng()) * n) >> 64);
}

// Uniform in [0, 1), and in (0, 1) (for a logarithm), from the top 53 bits.
template <class Rng>
double unit_interval(Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
template <class Rng>
double unit_open(Rng& rng) { return (static_cast<double>(rng() >> 11) + 0.5) * 0x1.0p-53; }

// A distribution of token counts, parsed from a flag value:
//   N                              always N
//   uniform:MIN:MAX                integers in [MIN, MAX], each equally likely
//   normal:MEAN:SD[:MIN:MAX]       rounded normal
//   lognormal:MEDIAN:SIGMA[:MIN:MAX]
//                                  rounded exp(N(ln MEDIAN, SIGMA²)); SIGMA is the
//                                  sd of the log, so the mean is MEDIAN·e^(SIGMA²/2)
// normal and lognormal samples are clamped (not redrawn) into [MIN, MAX],
// default [1, 2^31-1]: a length is at least one token. Sampling uses only the
// raw 64-bit outputs of the engine (not <random>'s distributions, which differ
// between standard libraries), so a seed gives the same lengths everywhere.
class length_dist {
public:
    enum class kind { fixed, uniform, normal, lognormal };

    // Throws std::invalid_argument naming spec and the accepted syntax; what
    // (e.g. "input_len") prefixes the message when given.
    static length_dist parse(std::string_view spec, std::string_view what = {});
    // Always n tokens (n >= 1): the spelling "N".
    static length_dist fixed(int n);

    int sample(std::mt19937_64& rng) const;
    int sample(request_rng& rng) const;
    // Mean of the clamped distribution (before rounding to integers).
    double mean() const;
    int min() const { return min_; }
    int max() const { return max_; }
    kind type() const { return kind_; }
    // Canonical spec: parse(describe()) gives the same distribution.
    std::string describe() const;

private:
    template <class Rng>
    int draw(Rng& rng) const;

    kind kind_ = kind::fixed;
    double a_ = 1;  // fixed value, uniform MIN, normal MEAN or lognormal MEDIAN
    double b_ = 0;  // uniform MAX, normal SD or lognormal SIGMA
    int min_ = 1;
    int max_ = 1;
    bool clipped_ = false;  // bounds were given explicitly (kept by describe)
};

}  // namespace openloop
