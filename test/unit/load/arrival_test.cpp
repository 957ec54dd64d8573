#include <boost/test/unit_test.hpp>

#include "openloop/load/arrival.hpp"

#include <boost/math/special_functions/gamma.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_arrival)

using namespace openloop;

namespace {

arrival_params params_of(arrival_kind kind, double rate, double burstiness, std::uint64_t seed) {
    arrival_params params;
    params.kind = kind;
    params.rate = rate;
    params.burstiness = burstiness;
    params.seed = seed;
    return params;
}

std::vector<std::int64_t> first_n(const arrival_params& params, std::size_t n) {
    arrival_process process(params);
    std::vector<std::int64_t> times;
    while (times.size() < n) {
        const auto t = process.next_ns();
        if (!t) {
            break;
        }
        times.push_back(*t);
    }
    return times;
}

std::vector<std::int64_t> until(const arrival_params& params, std::int64_t end_ns) {
    arrival_process process(params);
    std::vector<std::int64_t> times;
    for (auto t = process.next_ns(); t && *t < end_ns; t = process.next_ns()) {
        times.push_back(*t);
    }
    return times;
}

// Gaps in seconds between successive times, the first measured from 0.
std::vector<double> gaps_s(const std::vector<std::int64_t>& times) {
    std::vector<double> gaps;
    std::int64_t previous = 0;
    for (const auto t : times) {
        gaps.push_back(static_cast<double>(t - previous) * 1e-9);
        previous = t;
    }
    return gaps;
}

// Kolmogorov–Smirnov statistic of samples against cdf. Each time was rounded
// to the ns, so a gap is known to ±1 ns: the CDF is taken at whichever end of
// that interval favours the sample, which can only lower D by the rounding.
double ks_statistic(std::vector<double> samples, const std::function<double(double)>& cdf) {
    std::sort(samples.begin(), samples.end());
    const double n = static_cast<double>(samples.size());
    double d = 0;
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const double above = cdf(samples[i] + 1e-9);
        const double below = cdf(std::max(0.0, samples[i] - 1e-9));
        d = std::max({d, (static_cast<double>(i) + 1) / n - above, below - static_cast<double>(i) / n});
    }
    return d;
}

// Critical value of the one-sample KS test at α = 0.01.
double ks_critical(std::size_t n) {
    return 1.63 / std::sqrt(static_cast<double>(n));
}

double coefficient_of_variation(const std::vector<double>& x) {
    double mean = 0;
    for (const double v : x) {
        mean += v;
    }
    mean /= static_cast<double>(x.size());
    double var = 0;
    for (const double v : x) {
        var += (v - mean) * (v - mean);
    }
    return std::sqrt(var / static_cast<double>(x.size() - 1)) / mean;
}

// Whether a Poisson(mean) count lies inside its two-sided 99 % interval
// (normal approximation; the means used here are in the thousands).
bool inside_99(std::size_t count, double mean) {
    return std::abs(static_cast<double>(count) - mean) <= 2.576 * std::sqrt(mean);
}

}  // namespace

BOOST_AUTO_TEST_CASE(parse_kind) {
    BOOST_TEST((parse_arrival_kind("constant") == arrival_kind::constant));
    BOOST_TEST((parse_arrival_kind("poisson") == arrival_kind::poisson));
    BOOST_TEST((parse_arrival_kind("gamma") == arrival_kind::gamma));
    for (const auto kind : {arrival_kind::constant, arrival_kind::poisson, arrival_kind::gamma}) {
        BOOST_TEST((parse_arrival_kind(to_string(kind)) == kind));
    }
    try {
        parse_arrival_kind("bursty");
        BOOST_ERROR("no error for an unknown kind");
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find("\"bursty\"") != std::string::npos);
        BOOST_TEST(what.find("constant, poisson or gamma") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(poisson_gaps_are_exponential) {
    const double rate = 50;
    const auto gaps = gaps_s(first_n(params_of(arrival_kind::poisson, rate, 1.0, 11), 20'000));
    BOOST_TEST(gaps.size() == 20'000u);
    const double d = ks_statistic(gaps, [&](double x) { return 1 - std::exp(-rate * x); });
    BOOST_TEST(d < ks_critical(gaps.size()));
    // The same test rejects a schedule at the wrong rate: it has power.
    const double wrong = ks_statistic(gaps, [&](double x) { return 1 - std::exp(-1.1 * rate * x); });
    BOOST_TEST(wrong > ks_critical(gaps.size()));
    BOOST_TEST(coefficient_of_variation(gaps) == 1.0, boost::test_tools::tolerance(0.03));
}

BOOST_AUTO_TEST_CASE(gamma_gaps_match_shape_and_cv) {
    const double rate = 20;
    for (const double k : {0.25, 4.0}) {
        BOOST_TEST_CONTEXT("burstiness " << k) {
            const auto gaps = gaps_s(first_n(params_of(arrival_kind::gamma, rate, k, 12), 100'000));
            BOOST_TEST(coefficient_of_variation(gaps) == std::sqrt(1 / k), boost::test_tools::tolerance(0.03));
            const std::vector<double> first(gaps.begin(), gaps.begin() + 20'000);
            // Shape k, scale 1/(rate·k).
            const auto cdf = [&](double x) { return boost::math::gamma_p(k, x * rate * k); };
            BOOST_TEST(ks_statistic(first, cdf) < ks_critical(first.size()));
            const auto exponential = [&](double x) { return 1 - std::exp(-rate * x); };
            BOOST_TEST(ks_statistic(first, exponential) > ks_critical(first.size()));
        }
    }
}

BOOST_AUTO_TEST_CASE(poisson_count_inside_its_99_percent_interval) {
    // Count in [0, T] is Poisson(λT) = Poisson(20 000).
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
        BOOST_TEST_CONTEXT("seed " << seed) {
            const auto times = until(params_of(arrival_kind::poisson, 200, 1.0, seed), 100'000'000'000);
            BOOST_TEST(inside_99(times.size(), 20'000));
        }
    }
    const auto gamma = until(params_of(arrival_kind::gamma, 200, 4.0, 4), 100'000'000'000);
    // A renewal process with CV² = 1/4 has a count variance of a quarter of Poisson's.
    BOOST_TEST(std::abs(static_cast<double>(gamma.size()) - 20'000) <= 2.576 * std::sqrt(20'000 / 4.0));
}

BOOST_AUTO_TEST_CASE(count_blocks_hold_the_count_and_keep_poisson_bursts_inside) {
    // 50 req/s in blocks of 50 expected arrivals: exactly 50 in every second.
    arrival_params p = params_of(arrival_kind::poisson, 50, 1.0, 13);
    p.count_block = 50;
    const auto times = until(p, 200'000'000'000);
    BOOST_TEST(times.size() == 10'000u);
    for (std::size_t b = 0; b + 1 < 200; ++b) {
        const auto in = std::count_if(times.begin(), times.end(), [&](std::int64_t t) {
            return t >= static_cast<std::int64_t>(b) * 1'000'000'000 && t < static_cast<std::int64_t>(b + 1) * 1'000'000'000;
        });
        BOOST_TEST(in == 50, "second " << b);
    }
    BOOST_TEST(std::is_sorted(times.begin(), times.end()));
    // Inside a block the gaps are those of a Poisson process given its count:
    // close to exponential at the rate, CV near 1 (plain Poisson's count over
    // 200 s would stray by ~100 arrivals).
    const auto gaps = gaps_s(times);
    BOOST_TEST(coefficient_of_variation(gaps) == 1.0, boost::test_tools::tolerance(0.05));
    BOOST_TEST(first_n(p, 500) == first_n(p, 500));  // a function of the seed
    arrival_params huge = p;
    huge.count_block = max_count_block + 1;  // would reserve gigabytes
    BOOST_CHECK_THROW(arrival_process{huge}, std::invalid_argument);
    p.kind = arrival_kind::gamma;  // Poisson only: gamma ignores it
    p.burstiness = 4;
    arrival_params plain = p;
    plain.count_block = 0;
    BOOST_TEST(first_n(p, 500) == first_n(plain, 500));
}

BOOST_AUTO_TEST_CASE(times_never_decrease) {
    for (const auto kind : {arrival_kind::constant, arrival_kind::poisson, arrival_kind::gamma}) {
        auto params = params_of(kind, 1000, 0.1, 5);
        params.profile = parse_rate_profile("1000:1,0:0.5,1000-10:2,50:inf");
        const auto times = first_n(params, 50'000);
        BOOST_TEST(times.size() == 50'000u);
        BOOST_TEST(std::is_sorted(times.begin(), times.end()));
    }
}

BOOST_AUTO_TEST_CASE(deterministic_under_seed) {
    for (const auto kind : {arrival_kind::poisson, arrival_kind::gamma}) {
        const auto params = params_of(kind, 100, 0.5, 42);
        const auto a = first_n(params, 1000);
        const auto b = first_n(params, 1000);
        BOOST_TEST(a == b);
        auto other = params;
        other.seed = 43;
        const auto c = first_n(other, 1000);
        BOOST_TEST(a != c);
        BOOST_TEST(a.front() != c.front());
    }
}

BOOST_AUTO_TEST_CASE(constant_spacing_is_exact_without_drift) {
    const auto times = first_n(params_of(arrival_kind::constant, 1000, 1.0, 0), 1'000'000);
    for (std::size_t i = 0; i < times.size(); ++i) {
        if (times[i] != static_cast<std::int64_t>(i) * 1'000'000) {
            BOOST_ERROR("arrival " << i << " at " << times[i]);
            break;
        }
    }
    // 1/3 s is not a whole number of ns: every time is the nearest ns.
    const auto thirds = first_n(params_of(arrival_kind::constant, 3, 1.0, 0), 300'000);
    double worst = 0;
    for (std::size_t i = 0; i < thirds.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(thirds[i]) - static_cast<double>(i) * 1e9 / 3));
    }
    BOOST_TEST(worst <= 0.5 + 1e-6);
    // A time beyond int64 ns ends the schedule instead of wrapping.
    arrival_process slow(params_of(arrival_kind::constant, 1e-10, 1.0, 0));
    BOOST_TEST(slow.next_ns().value_or(-1) == 0);
    BOOST_TEST(!slow.next_ns().has_value());
    BOOST_TEST(!slow.next_ns().has_value());
    // The seed does not matter for a constant schedule.
    BOOST_TEST(first_n(params_of(arrival_kind::constant, 3, 1.0, 99), 1000) ==
               std::vector<std::int64_t>(thirds.begin(), thirds.begin() + 1000));
}

BOOST_AUTO_TEST_CASE(stepped_profile) {
    auto params = params_of(arrival_kind::constant, 1, 1.0, 0);
    params.profile = parse_rate_profile("2:3,0:2,4:1");
    const auto times = first_n(params, 100);
    // 0, 0.5 … 2.5 s at 2/s; a pause; 5, 5.25, 5.5, 5.75 s at 4/s; then the end.
    const std::vector<std::int64_t> expected = {0,           500'000'000,   1'000'000'000, 1'500'000'000,
                                                2'000'000'000, 2'500'000'000, 5'000'000'000, 5'250'000'000,
                                                5'500'000'000, 5'750'000'000};
    BOOST_TEST(times == expected);

    // Poisson: each step's count inside its 99 % interval.
    params.kind = arrival_kind::poisson;
    params.seed = 7;
    params.profile = parse_rate_profile("100:50,400:50,0:10,50:100");
    const auto random = first_n(params, 1'000'000);
    const auto in = [&](double from_s, double to_s) {
        return std::count_if(random.begin(), random.end(), [&](std::int64_t t) {
            return t >= from_s * 1e9 && t < to_s * 1e9;
        });
    };
    BOOST_TEST(inside_99(in(0, 50), 5000));
    BOOST_TEST(inside_99(in(50, 100), 20'000));
    BOOST_TEST(in(100, 110) == 0);
    BOOST_TEST(inside_99(in(110, 210), 5000));
    BOOST_TEST(random.back() < 210'000'000'000);
}

BOOST_AUTO_TEST_CASE(ramped_profile) {
    // 0 → 200 req/s over 100 s: Λ(t) = t², so constant arrival n is at √n s.
    auto params = params_of(arrival_kind::constant, 1, 1.0, 0);
    params.profile = {{100, 0, 200}};
    const auto times = first_n(params, 100'000);
    BOOST_TEST(times.size() == 10'000u);
    for (const std::size_t n : {1u, 2u, 100u, 2500u, 9999u}) {
        BOOST_TEST(std::abs(times[n] - std::llround(std::sqrt(static_cast<double>(n)) * 1e9)) <= 1);
    }
    // Poisson over the same ramp: 2500 expected in the first 50 s, 7500 in the rest.
    params.kind = arrival_kind::poisson;
    params.seed = 8;
    const auto random = first_n(params, 100'000);
    const auto early = std::count_if(random.begin(), random.end(), [](std::int64_t t) { return t < 50'000'000'000; });
    BOOST_TEST(inside_99(early, 2500));
    BOOST_TEST(inside_99(random.size() - early, 7500));
}

BOOST_AUTO_TEST_CASE(parse_profiles) {
    const auto p = parse_rate_profile("10:60,10-50:120,1e-3-2.5e1:1.5,50:inf");
    const std::vector<rate_segment> expected = {{60, 10, 10}, {120, 10, 50}, {1.5, 1e-3, 25}, {INFINITY, 50, 50}};
    BOOST_TEST((p == expected));
    const std::vector<rate_segment> units = {{120, 2, 2}, {0.5, 2, 8}, {3600, 8, 8}};
    BOOST_TEST((parse_rate_profile("2:2m,2-8:500ms,8:1h") == units));
    for (const char* bad : {"", "10", "x:5", "10:0", "10:-1", "-5:10", "10-:5", "10:5,", "10:nan", "inf:5", "10:5days"}) {
        BOOST_TEST_CONTEXT(bad) {
            BOOST_CHECK_THROW(parse_rate_profile(bad), std::invalid_argument);
        }
    }
    try {
        parse_rate_profile("10:5,20:x");
        BOOST_ERROR("no error");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("item 2 \"20:x\"") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(bad_params_throw) {
    BOOST_CHECK_THROW(arrival_process(params_of(arrival_kind::poisson, 0, 1.0, 0)), std::invalid_argument);
    BOOST_CHECK_THROW(arrival_process(params_of(arrival_kind::poisson, -1, 1.0, 0)), std::invalid_argument);
    BOOST_CHECK_THROW(arrival_process(params_of(arrival_kind::poisson, INFINITY, 1.0, 0)), std::invalid_argument);
    BOOST_CHECK_THROW(arrival_process(params_of(arrival_kind::gamma, 1, 0, 0)), std::invalid_argument);
    auto params = params_of(arrival_kind::poisson, 1, 1.0, 0);
    params.profile = parse_rate_profile("5:inf,5:10");
    BOOST_CHECK_THROW(arrival_process{params}, std::invalid_argument);
    params.profile = {{INFINITY, 1, 2}};
    BOOST_CHECK_THROW(arrival_process{params}, std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
