#pragma once
// Log-linear histogram of non-negative integers after HdrHistogram: values are
// bucketed by power of two, and each power of two is split into linear
// sub-buckets fine enough for the configured significant digits (3 digits:
// every bucket is at most 1/1024 of its lowest value wide). The counters
// (1 ns … 1 h at 3 digits: 33 792 of them, 264 KiB) are allocated by the first
// record or merge, once: a run holds dozens of families it never fills, and
// zeroing them all up front cost more than the run itself under a sanitizer.
// Recording is O(1) and allocates nothing after that, and two histograms of
// the same configuration merge exactly by adding counts, so shards can be
// combined after the fact.

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace openloop {

class histogram {
public:
    // One hour in nanoseconds: longer than any request a run should wait for.
    static constexpr std::int64_t default_highest = 3'600'000'000'000;
    // What a statistic is when it falls on an infinite sample (record_infinite).
    static constexpr std::int64_t infinite = std::numeric_limits<std::int64_t>::max();

    // Tracks 0 … highest (>= 2) with significant_digits (1 … 5) of precision;
    // throws std::invalid_argument otherwise.
    explicit histogram(std::int64_t highest = default_highest, int significant_digits = 3);

    // Negative values count as 0; values above highest() count as highest()
    // (everywhere: min, max, mean, percentiles) and in saturated(). The first
    // one allocates the counters (out of memory there ends the process).
    void record(std::int64_t value) noexcept;
    // Records value count times in O(1): one chunk interval stands for every
    // token it carried, however many the server claims (no loop per token).
    // count = 0 records nothing.
    void record(std::int64_t value, std::uint64_t count) noexcept;
    // A sample known only to lie past every value: a request whose answer never came, for the
    // time to its first answer token. It counts in count(), sorts after every other sample and
    // is in no bucket: a percentile whose rank falls on one, max() and mean() are infinite (min()
    // too when every sample is); sum() and count_at_or_below() leave it out.
    void record_infinite(std::uint64_t count = 1) noexcept;
    // Adds other's counts; throws std::invalid_argument if its configuration differs.
    void merge(const histogram& other);
    void reset() noexcept;

    std::uint64_t count() const noexcept { return count_; }
    std::uint64_t saturated() const noexcept { return saturated_; }
    std::uint64_t infinite_count() const noexcept { return infinite_; }
    // Exact; 0 when empty; infinite as record_infinite says.
    std::int64_t min() const noexcept { return count_ == 0 ? 0 : finite() == 0 ? infinite : min_; }
    std::int64_t max() const noexcept { return count_ == 0 ? 0 : infinite_ > 0 ? infinite : max_; }
    // Exact (from the exact sum); 0 when empty; +inf with an infinite sample.
    double mean() const noexcept;
    // Population standard deviation, from bucket midpoints around the exact mean; +inf with an
    // infinite sample.
    double stddev() const noexcept;
    // The nearest-rank percentile: the value of rank ceil(p/100 · count) among
    // the sorted samples (rank 1 for p = 0), within half a unit of the last
    // significant digit (0.05 % at 3 digits) of it; p = 0 and
    // p = 100 give min() and max() exactly. 0 when empty. Throws
    // std::invalid_argument unless 0 <= p <= 100.
    std::int64_t percentile(double p) const;
    // Samples at or below value, for cumulative (Prometheus) buckets: every
    // sample in a bucket whose lowest value is <= value, so it is exact when
    // value is the top of its bucket and otherwise may include samples above
    // value by less than one bucket width (< 0.1 % of value at 3 digits).
    // Saturated samples count as highest(); 0 for negative value.
    std::uint64_t count_at_or_below(std::int64_t value) const noexcept;
    // The sum of all samples as recorded (saturated ones as highest()),
    // exact until it passes 2^53; 0 when empty.
    double sum() const noexcept { return static_cast<double>(sum_); }

    std::int64_t highest() const noexcept { return highest_; }
    int significant_digits() const noexcept { return digits_; }

    // {"highest", "significant_digits", "count", "saturated", "min", "max",
    //  "sum", "counts"} and "infinite" when there are such samples (in "count",
    // in no bucket; "min" and "max" are the finite samples'): "sum" is a number,
    // or a decimal string when it exceeds 2^64 - 1; "counts" lists bucket counts
    // from bucket 0 up to the last non-zero one, with each run of n empty
    // buckets written as -n.
    boost::json::object to_json() const;
    // Inverse of to_json; throws std::invalid_argument naming the bad field.
    static histogram from_json(const boost::json::value& json);

    // Equal configurations and samples; counters never allocated equal zeros.
    bool operator==(const histogram& other) const noexcept;

private:
    // Exact for any count of values up to 2^63: a 64-bit sum overflows after
    // 2.5 million hour-long samples.
    __extension__ using sum_type = unsigned __int128;

    std::uint64_t finite() const noexcept { return count_ - infinite_; }
    std::size_t index_of(std::int64_t value) const noexcept;
    // The middle of bucket index, kept inside [min, max].
    std::int64_t representative(std::size_t index) const noexcept;

    std::int64_t highest_;
    int digits_;
    int half_magnitude_;  // log2 of half the sub-buckets per power of two
    std::int64_t sub_bucket_mask_;
    std::size_t buckets_ = 0;
    std::vector<std::uint64_t> counts_;  // empty until the first sample: all zero
    std::uint64_t count_ = 0;
    std::uint64_t saturated_ = 0;
    std::uint64_t infinite_ = 0;  // in count_, in no bucket
    std::int64_t min_ = std::numeric_limits<std::int64_t>::max();
    std::int64_t max_ = 0;
    sum_type sum_ = 0;
};

// A statistic of nanoseconds in ms: one that fell on an infinite sample is +inf.
constexpr double ns_as_ms(std::int64_t ns) {
    return ns == histogram::infinite ? std::numeric_limits<double>::infinity() : static_cast<double>(ns) / 1e6;
}

}  // namespace openloop
