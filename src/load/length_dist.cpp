#include "openloop/load/length_dist.hpp"

#include "openloop/base/quantity.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace openloop {
namespace {

constexpr std::string_view length_syntax =
    "expected N, uniform:MIN:MAX, normal:MEAN:SD[:MIN:MAX] or lognormal:MEDIAN:SIGMA[:MIN:MAX] "
    "(N, MIN, MAX integers >= 1; SD, SIGMA >= 0; MEDIAN > 0)";

template <class Rng>
double std_normal(Rng& rng) {
    const double r = std::sqrt(-2.0 * std::log(unit_open(rng)));
    return r * std::cos(2.0 * std::numbers::pi * unit_open(rng));
}

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::numbers::sqrt2); }
double normal_pdf(double z) { return std::exp(-0.5 * z * z) / std::sqrt(2.0 * std::numbers::pi); }

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> out;
    for (;;) {
        std::size_t at = s.find(sep);
        out.push_back(s.substr(0, at));
        if (at == std::string_view::npos) return out;
        s.remove_prefix(at + 1);
    }
}

}  // namespace

length_dist length_dist::parse(std::string_view spec, std::string_view what) {
    auto fail = [&](std::string_view why) {
        std::string message = "invalid length distribution \"" + std::string(spec) + "\"";
        if (!what.empty()) message += " for " + std::string(what);
        message += ": " + std::string(why) + "; " + std::string(length_syntax);
        return input_error(message);
    };
    auto count = [&](std::string_view s, std::string_view name) {
        const auto v = as_integer(s);
        if (!v || *v < 1 || *v > std::numeric_limits<int>::max())
            throw fail(std::string(name) + " must be an integer >= 1");
        return static_cast<int>(*v);
    };
    auto real = [&](std::string_view s, std::string_view name) {
        const auto v = as_number(s);
        if (!v) throw fail(std::string(name) + " must be a number");
        return *v;
    };

    const std::vector<std::string_view> parts = split(spec, ':');
    length_dist d;
    if (parts.size() == 1) {
        d.kind_ = kind::fixed;
        d.min_ = d.max_ = count(parts[0], "N");
        d.a_ = d.min_;
        return d;
    }
    if (parts[0] == "uniform") {
        if (parts.size() != 3) throw fail("uniform takes MIN:MAX");
        d.kind_ = kind::uniform;
        d.min_ = count(parts[1], "MIN");
        d.max_ = count(parts[2], "MAX");
        if (d.min_ > d.max_) throw fail("MIN must not exceed MAX");
        d.a_ = d.min_;
        d.b_ = d.max_;
        return d;
    }
    const bool normal = parts[0] == "normal";
    if (!normal && parts[0] != "lognormal") throw fail("unknown kind \"" + std::string(parts[0]) + "\"");
    if (parts.size() != 3 && parts.size() != 5) throw fail(std::string(parts[0]) + " takes 2 parameters and optional MIN:MAX");
    d.kind_ = normal ? kind::normal : kind::lognormal;
    d.a_ = real(parts[1], normal ? "MEAN" : "MEDIAN");
    d.b_ = real(parts[2], normal ? "SD" : "SIGMA");
    if (d.b_ < 0) throw fail(normal ? "SD must be >= 0" : "SIGMA must be >= 0");
    if (!normal && d.a_ <= 0) throw fail("MEDIAN must be > 0");
    d.min_ = 1;
    d.max_ = std::numeric_limits<int>::max();
    if (parts.size() == 5) {
        d.min_ = count(parts[3], "MIN");
        d.max_ = count(parts[4], "MAX");
        if (d.min_ > d.max_) throw fail("MIN must not exceed MAX");
        d.clipped_ = true;
    }
    return d;
}

length_dist length_dist::fixed(int n) {
    length_dist d;
    d.min_ = d.max_ = n;
    d.a_ = n;
    return d;
}

template <class Rng>
int length_dist::draw(Rng& rng) const {
    double x = 0;
    switch (kind_) {
        case kind::fixed: return min_;
        case kind::uniform: return min_ + int(below(rng, std::uint64_t(max_ - min_) + 1));
        case kind::normal: x = a_ + b_ * std_normal(rng); break;
        case kind::lognormal: x = a_ * std::exp(b_ * std_normal(rng)); break;
    }
    // Clamp before rounding so a far tail cannot overflow the conversion.
    return int(std::llround(std::clamp(x, double(min_), double(max_))));
}

int length_dist::sample(std::mt19937_64& rng) const { return draw(rng); }
int length_dist::sample(request_rng& rng) const { return draw(rng); }

double length_dist::mean() const {
    const double lo = min_, hi = max_;
    switch (kind_) {
        case kind::fixed: return a_;
        case kind::uniform: return (lo + hi) / 2;
        case kind::normal: {
            if (b_ == 0) return std::clamp(a_, lo, hi);
            const double alpha = (lo - a_) / b_, beta = (hi - a_) / b_;
            return lo * normal_cdf(alpha) + hi * (1 - normal_cdf(beta)) +
                   a_ * (normal_cdf(beta) - normal_cdf(alpha)) + b_ * (normal_pdf(alpha) - normal_pdf(beta));
        }
        case kind::lognormal: {
            if (b_ == 0) return std::clamp(a_, lo, hi);
            const double mu = std::log(a_), s = b_;
            auto z = [&](double v) { return (std::log(v) - mu) / s; };
            // E[X; lo < X < hi] for a lognormal is e^(mu+s²/2)·[Φ(z(hi)-s) - Φ(z(lo)-s)].
            return lo * normal_cdf(z(lo)) + hi * (1 - normal_cdf(z(hi))) +
                   std::exp(mu + s * s / 2) * (normal_cdf(z(hi) - s) - normal_cdf(z(lo) - s));
        }
    }
    return a_;
}

std::string length_dist::describe() const {
    switch (kind_) {
        case kind::fixed: return std::to_string(min_);
        case kind::uniform: return "uniform:" + std::to_string(min_) + ":" + std::to_string(max_);
        case kind::normal:
        case kind::lognormal: {
            std::string s = (kind_ == kind::normal ? "normal:" : "lognormal:") + shortest_text(a_) + ":" + shortest_text(b_);
            if (clipped_) s += ":" + std::to_string(min_) + ":" + std::to_string(max_);
            return s;
        }
    }
    return {};
}

}  // namespace openloop
