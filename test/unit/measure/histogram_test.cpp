#include <boost/test/unit_test.hpp>

#include "openloop/measure/histogram.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_histogram)

using openloop::histogram;

namespace {

constexpr double percentiles[] = {0, 0.1, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100};

// Nearest rank as the header defines it, from the sorted samples.
std::int64_t exact_percentile(const std::vector<std::int64_t>& sorted, double p) {
    const double r = p / 100.0 * static_cast<double>(sorted.size());
    auto rank = static_cast<std::size_t>(std::ceil(r * (1.0 - 1e-12)));
    rank = std::clamp<std::size_t>(rank, 1, sorted.size());
    return sorted[rank - 1];
}

void check_against_exact(std::vector<std::int64_t> values, const std::string& name) {
    histogram h;
    for (const auto v : values) {
        h.record(v);
    }
    std::sort(values.begin(), values.end());
    BOOST_TEST_CONTEXT(name) {
        BOOST_TEST(h.count() == values.size());
        BOOST_TEST(h.min() == values.front());
        BOOST_TEST(h.max() == values.back());
        long double sum = 0;
        for (const auto v : values) {
            sum += static_cast<long double>(v);
        }
        const double mean = static_cast<double>(sum / values.size());
        BOOST_TEST(h.mean() == mean, boost::test_tools::tolerance(1e-12));
        long double var = 0;
        for (const auto v : values) {
            var += (v - sum / values.size()) * (v - sum / values.size());
        }
        const double sd = static_cast<double>(std::sqrt(var / values.size()));
        BOOST_TEST(std::abs(h.stddev() - sd) <= 1e-3 * sd + 1e-9);
        for (const double p : percentiles) {
            const auto exact = exact_percentile(values, p);
            const auto got = h.percentile(p);
            BOOST_TEST_CONTEXT("p" << p << " exact " << exact << " got " << got) {
                BOOST_TEST(std::abs(static_cast<double>(got - exact)) <= 1e-3 * static_cast<double>(exact));
            }
        }
        BOOST_TEST(h.percentile(0) == values.front());
        BOOST_TEST(h.percentile(100) == values.back());
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(uniform_within_a_tenth_of_a_percent) {
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<std::int64_t> dist(0, 10'000'000);
    std::vector<std::int64_t> values(200'000);
    for (auto& v : values) {
        v = dist(rng);
    }
    check_against_exact(values, "uniform");
}

BOOST_AUTO_TEST_CASE(lognormal_from_microseconds_to_minutes) {
    // Median 100 ms, σ = 3: the bulk spans ~10 µs … ~15 min in ns.
    std::mt19937_64 rng(2);
    std::lognormal_distribution<double> dist(std::log(1e8), 3.0);
    std::vector<std::int64_t> values(200'000);
    for (auto& v : values) {
        v = std::min<std::int64_t>(std::llround(dist(rng)), histogram::default_highest);
    }
    check_against_exact(values, "lognormal");
}

BOOST_AUTO_TEST_CASE(constant_and_few_samples) {
    check_against_exact(std::vector<std::int64_t>(1000, 123'456'789), "constant");
    histogram constant;
    for (int i = 0; i < 1000; ++i) {
        constant.record(123'456'789);
    }
    BOOST_TEST(constant.stddev() == 0.0);
    BOOST_TEST(constant.percentile(50) == 123'456'789);
    check_against_exact({42}, "one");
    check_against_exact({7, 3'000'000'000}, "two");
    check_against_exact({5, 1'000'000, 999, 1'234'567'890'123}, "four");
}

BOOST_AUTO_TEST_CASE(small_values_are_exact) {
    histogram h;
    for (std::int64_t v = 0; v < 2048; ++v) {
        h.record(v);
    }
    for (std::int64_t v = 1; v <= 2048; ++v) {
        BOOST_TEST(h.percentile(100.0 * static_cast<double>(v) / 2048.0) == v - 1);
    }
}

BOOST_AUTO_TEST_CASE(empty_histogram) {
    histogram h;
    BOOST_TEST(h.count() == 0u);
    BOOST_TEST(h.min() == 0);
    BOOST_TEST(h.max() == 0);
    BOOST_TEST(h.mean() == 0.0);
    BOOST_TEST(h.stddev() == 0.0);
    BOOST_TEST(h.percentile(99) == 0);
}

BOOST_AUTO_TEST_CASE(clamping_is_counted) {
    histogram h(1'000'000);
    h.record(-5);
    h.record(2'000'000);
    h.record(1'000'000);
    h.record(500);
    BOOST_TEST(h.count() == 4u);
    BOOST_TEST(h.saturated() == 1u);
    BOOST_TEST(h.min() == 0);
    BOOST_TEST(h.max() == 1'000'000);
    BOOST_TEST(h.percentile(100) == 1'000'000);
    BOOST_TEST(h.mean() == (0 + 1'000'000 + 1'000'000 + 500) / 4.0);
}

BOOST_AUTO_TEST_CASE(bad_arguments_throw) {
    BOOST_CHECK_THROW(histogram(1), std::invalid_argument);
    BOOST_CHECK_THROW(histogram(1000, 0), std::invalid_argument);
    BOOST_CHECK_THROW(histogram(1000, 6), std::invalid_argument);
    histogram h;
    BOOST_CHECK_THROW(h.percentile(-1), std::invalid_argument);
    BOOST_CHECK_THROW(h.percentile(100.5), std::invalid_argument);
    BOOST_CHECK_THROW(h.percentile(std::nan("")), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(other_configurations_keep_their_precision) {
    // The widest range and the coarsest digits still hold their bound.
    std::mt19937_64 rng(3);
    std::lognormal_distribution<double> dist(std::log(1e12), 4.0);
    for (const int digits : {1, 2, 3, 4}) {
        histogram h(std::numeric_limits<std::int64_t>::max(), digits);
        std::vector<std::int64_t> values(20'000);
        for (auto& v : values) {
            v = std::llround(std::min(dist(rng), 1e18));
            h.record(v);
        }
        std::sort(values.begin(), values.end());
        for (const double p : percentiles) {
            const auto exact = exact_percentile(values, p);
            BOOST_TEST_CONTEXT("digits " << digits << " p" << p) {
                BOOST_TEST(std::abs(static_cast<double>(h.percentile(p) - exact)) <=
                           0.5 * std::pow(10.0, -digits) * static_cast<double>(exact));
            }
        }
    }
}

BOOST_AUTO_TEST_CASE(merge_equals_recording_everything) {
    std::mt19937_64 rng(4);
    std::lognormal_distribution<double> dist(std::log(1e7), 2.0);
    histogram all(1'000'000'000);
    histogram a(1'000'000'000);
    histogram b(1'000'000'000);
    for (int i = 0; i < 50'000; ++i) {
        const auto v = std::llround(dist(rng));
        all.record(v);
        (i % 3 == 0 ? a : b).record(v);
    }
    BOOST_TEST(all.saturated() > 0u);
    BOOST_TEST(!(a == all));
    a.merge(b);
    BOOST_TEST((a == all));
    BOOST_TEST(a.percentile(99) == all.percentile(99));

    histogram empty(1'000'000'000);
    a.merge(empty);
    BOOST_TEST((a == all));
    empty.merge(all);
    BOOST_TEST((empty == all));

    BOOST_CHECK_THROW(a.merge(histogram()), std::invalid_argument);
    BOOST_CHECK_THROW(a.merge(histogram(1'000'000'000, 2)), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(reset_empties) {
    histogram h;
    h.record(5);
    h.record(histogram::default_highest + 1);
    h.reset();
    BOOST_TEST((h == histogram()));
    h.record(7);
    BOOST_TEST(h.min() == 7);
    BOOST_TEST(h.max() == 7);
}

// Equality looks at the buckets, not only the summary figures: these two
// agree in count, min, max and sum.
BOOST_AUTO_TEST_CASE(equality_compares_buckets) {
    histogram a, b;
    for (const auto v : {1, 2, 4, 5}) a.record(v);
    for (const auto v : {1, 3, 3, 5}) b.record(v);
    BOOST_TEST(a.sum() == b.sum());
    BOOST_TEST(!(a == b));
    a.reset();
    BOOST_TEST((a == histogram()));
    BOOST_TEST((histogram() == a));
}

BOOST_AUTO_TEST_CASE(json_round_trip) {
    std::mt19937_64 rng(5);
    std::lognormal_distribution<double> dist(std::log(1e8), 3.0);
    histogram h;
    for (int i = 0; i < 10'000; ++i) {
        h.record(std::llround(dist(rng)));
    }
    const auto text = boost::json::serialize(h.to_json());
    const auto back = histogram::from_json(boost::json::parse(text));
    BOOST_TEST((back == h));
    BOOST_TEST(boost::json::serialize(back.to_json()) == text);
    // Run-length encoding keeps a sparse histogram small.
    BOOST_TEST(text.size() < 40'000u);

    BOOST_TEST((histogram::from_json(histogram().to_json()) == histogram()));
}

BOOST_AUTO_TEST_CASE(json_sum_beyond_64_bits) {
    histogram h(std::numeric_limits<std::int64_t>::max());
    for (int i = 0; i < 5; ++i) {
        h.record(std::numeric_limits<std::int64_t>::max());
    }
    const auto j = h.to_json();
    BOOST_TEST(j.at("sum").is_string());
    BOOST_TEST(j.at("sum").as_string() == "46116860184273879035");
    const auto back = histogram::from_json(boost::json::parse(boost::json::serialize(j)));
    BOOST_TEST((back == h));
    BOOST_TEST(back.mean() == static_cast<double>(std::numeric_limits<std::int64_t>::max()));
}

BOOST_AUTO_TEST_CASE(json_errors_name_the_field) {
    histogram h;
    h.record(1000);
    h.record(5000);
    const auto good = h.to_json();
    const auto expect_error = [](const boost::json::value& j, const std::string& needle) {
        try {
            histogram::from_json(j);
            BOOST_ERROR("no error for " << boost::json::serialize(j));
        } catch (const std::invalid_argument& e) {
            BOOST_TEST_CONTEXT(e.what()) {
                BOOST_TEST(std::string(e.what()).find(needle) != std::string::npos);
            }
        }
    };
    expect_error(boost::json::value(3), "expected an object");
    for (const char* name : {"highest", "significant_digits", "count", "saturated", "min", "max", "sum", "counts"}) {
        auto j = good;
        j.erase(name);
        expect_error(j, std::string("missing field '") + name + "'");
    }
    {
        auto j = good;
        j["highest"] = "big";
        expect_error(j, "'highest' must be a non-negative integer");
    }
    {
        auto j = good;
        j["highest"] = 1;
        expect_error(j, "highest must be >= 2");
    }
    {
        auto j = good;
        j["significant_digits"] = 9;
        expect_error(j, "'significant_digits'");
    }
    {
        auto j = good;
        j["count"] = 3;
        expect_error(j, "field 'count' is 3 but field 'counts' sums to 2");
    }
    {
        auto j = good;
        j["counts"] = boost::json::array{-100000, 1};
        expect_error(j, "field 'counts' element 0 runs past");
    }
    {
        auto j = good;
        j["counts"] = boost::json::array{1, 0, 1};
        expect_error(j, "field 'counts' element 1 is 0");
    }
    {
        auto j = good;
        j["counts"] = boost::json::array{1, "x"};
        expect_error(j, "field 'counts' element 1 must be an integer");
    }
    {
        auto j = good;
        j["counts"] = "none";
        expect_error(j, "field 'counts' must be an array");
    }
    {
        auto j = good;
        j["min"] = 1200;
        expect_error(j, "fields 'min' and 'max'");
    }
    {
        auto j = good;
        j["sum"] = "12a";
        expect_error(j, "field 'sum' must be a decimal integer");
    }
    {
        auto j = good;
        j["sum"] = 1;
        expect_error(j, "field 'sum' is outside");
    }
    {
        auto j = good;
        j["saturated"] = 5;
        expect_error(j, "field 'saturated'");
    }
}

BOOST_AUTO_TEST_CASE(weighted_record_equals_repeated_record) {
    openloop::histogram once, looped;
    once.record(1234, 1000);
    for (int i = 0; i < 1000; ++i) looped.record(1234);
    BOOST_TEST((once == looped));
    once.record(5, 0);  // a weight of 0 records nothing
    BOOST_TEST((once == looped));
}

BOOST_AUTO_TEST_CASE(weighted_record_takes_a_huge_weight_in_one_step) {
    openloop::histogram h;
    h.record(7, 2147483647);
    h.record(openloop::histogram::default_highest + 1, 4294967396);
    BOOST_TEST(h.count() == 2147483647u + 4294967396u);
    BOOST_TEST(h.saturated() == 4294967396u);
    BOOST_TEST(h.min() == 7);
    BOOST_TEST(h.max() == openloop::histogram::default_highest);
    BOOST_TEST(h.percentile(10) == 7);
}

BOOST_AUTO_TEST_CASE(count_at_or_below_is_within_one_bucket) {
    std::mt19937_64 rng(11);
    std::lognormal_distribution<double> dist(13.0, 2.5);  // ~0.4 ms median, spread over decades
    histogram h;
    std::vector<std::int64_t> values;
    for (int i = 0; i < 20000; ++i) {
        const auto v = static_cast<std::int64_t>(dist(rng)) % 1'000'000'000'000;
        values.push_back(v);
        h.record(v);
    }
    for (std::int64_t v : {7, 500, 2047}) {  // unit resolution below 2048: exact
        h.record(v);
        values.push_back(v);
    }
    std::sort(values.begin(), values.end());
    const auto at_or_below = [&](double x) {
        return static_cast<std::uint64_t>(std::upper_bound(values.begin(), values.end(),
                                                           static_cast<std::int64_t>(x)) - values.begin());
    };
    for (std::int64_t bound : {std::int64_t{0}, std::int64_t{7}, std::int64_t{500}, std::int64_t{2047},
                               std::int64_t{10'000}, std::int64_t{1'000'000}, std::int64_t{250'000'000},
                               std::int64_t{5'000'000'000}, std::int64_t{300'000'000'000}}) {
        BOOST_TEST_CONTEXT("bound " << bound) {
            const auto got = h.count_at_or_below(bound);
            BOOST_TEST(got >= at_or_below(static_cast<double>(bound)));
            BOOST_TEST(got <= at_or_below(static_cast<double>(bound) * (1 + 1.0 / 1024)));
            if (bound < 2048) {
                BOOST_TEST(got == at_or_below(static_cast<double>(bound)));
            }
        }
    }
    BOOST_TEST(h.count_at_or_below(-1) == 0u);
    BOOST_TEST(h.count_at_or_below(values.back()) == h.count());
    BOOST_TEST(h.count_at_or_below(histogram::default_highest) == h.count());
    // Non-decreasing, as cumulative buckets must be.
    std::uint64_t previous = 0;
    for (std::int64_t b = 1; b < 1'000'000'000'000; b *= 3) {
        BOOST_TEST(h.count_at_or_below(b) >= previous);
        previous = h.count_at_or_below(b);
    }
    long double exact_sum = 0;
    for (const auto v : values) exact_sum += static_cast<long double>(v);
    BOOST_TEST(h.sum() == static_cast<double>(exact_sum));
}

BOOST_AUTO_TEST_CASE(count_at_or_below_and_sum_of_saturated_and_empty) {
    histogram h(1000);
    BOOST_TEST(h.count_at_or_below(5) == 0u);
    BOOST_TEST(h.sum() == 0.0);
    h.record(10);
    h.record(5000, 3);  // saturated: counted as 1000
    BOOST_TEST(h.count_at_or_below(10) == 1u);
    BOOST_TEST(h.count_at_or_below(999) == 1u);
    BOOST_TEST(h.count_at_or_below(1000) == 4u);
    BOOST_TEST(h.sum() == 3010.0);
}

// An infinite sample (a request that never answered, for TTFA) counts and sorts after every
// other: a percentile whose rank falls on one, the max and the mean are infinite; the rest,
// sum() and the cumulative counts are the finite samples'. It merges and round-trips.
BOOST_AUTO_TEST_CASE(infinite_samples_sort_last) {
    histogram h;
    for (int v = 1; v <= 97; ++v) h.record(v * 1000);
    h.record_infinite(3);
    BOOST_TEST(h.count() == 100u);
    BOOST_TEST(h.infinite_count() == 3u);
    BOOST_TEST(std::abs(h.percentile(97) - 97'000) <= 97);  // the last finite sample, within 0.1 %
    BOOST_TEST(h.percentile(97.5) == histogram::infinite);
    BOOST_TEST(h.percentile(99) == histogram::infinite);
    BOOST_TEST(h.max() == histogram::infinite);
    BOOST_TEST(h.min() == 1000);
    BOOST_TEST(std::isinf(h.mean()));
    BOOST_TEST(std::isinf(openloop::ns_as_ms(h.percentile(100))));
    BOOST_TEST(h.sum() == 97.0 * 98 / 2 * 1000);
    BOOST_TEST(h.count_at_or_below(1'000'000) == 97u);
    const histogram back = histogram::from_json(h.to_json());
    BOOST_TEST((back == h));
    BOOST_TEST(h.to_json().at("infinite").as_uint64() == 3u);
    histogram only;
    only.record_infinite();
    BOOST_TEST(only.min() == histogram::infinite);
    BOOST_TEST((histogram::from_json(only.to_json()) == only));
    histogram merged;
    merged.merge(h);
    merged.merge(only);
    BOOST_TEST(merged.infinite_count() == 4u);
    BOOST_TEST(merged.percentile(97) == histogram::infinite);  // rank 98 of 101: past the 97 finite
    merged.reset();
    BOOST_TEST(merged.count() == 0u);
    BOOST_TEST(!histogram().to_json().contains("infinite"));  // older readers see what they always saw
    // A count that the buckets and the infinite samples do not add up to is named.
    auto broken = h.to_json();
    broken["infinite"] = 4;
    BOOST_CHECK_THROW(histogram::from_json(broken), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
