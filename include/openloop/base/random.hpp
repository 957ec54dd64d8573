#pragma once
// Random numbers the same for a seed on every platform: SplitMix64, as a hash
// of one word (mix64) and as a stream of one word of state (request_rng), and
// the few draws made from it. Only raw 64-bit outputs are used, never <random>'s
// distributions, which differ between standard libraries. Pure.

#include <cstdint>

namespace openloop {

// splitmix64 step: cheap, well mixed, and reproducible across platforms.
constexpr std::uint64_t mix64(std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

// One request's own random stream (SplitMix64: one word of state), seeded
// from the run's seed and the request's global index, so its draws do not
// depend on which requests were drawn before it (load/shard.hpp).
class request_rng {
public:
    using result_type = std::uint64_t;
    explicit request_rng(std::uint64_t seed) : state_(seed) {}
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    result_type operator()() {
        const result_type z = mix64(state_);
        state_ += 0x9e3779b97f4a7c15ULL;
        return z;
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

}  // namespace openloop
