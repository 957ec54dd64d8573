#pragma once
// Token counts drawn from a distribution, the same for a seed on every
// platform (base/random.hpp): the distributions a length flag spells. Pure.

#include "openloop/base/random.hpp"

#include <cstdint>
#include <random>
#include <string>
#include <string_view>

namespace openloop {

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
