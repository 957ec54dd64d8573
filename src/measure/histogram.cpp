#include "openloop/measure/histogram.hpp"

#include <boost/json/array.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>
#include <string_view>

namespace openloop {

namespace {

[[noreturn]] void bad_json(const std::string& what) {
    throw std::invalid_argument("histogram JSON: " + what);
}

const boost::json::value& field(const boost::json::object& o, std::string_view name) {
    const auto* v = o.if_contains(name);
    if (v == nullptr) {
        bad_json("missing field '" + std::string(name) + "'");
    }
    return *v;
}

std::uint64_t unsigned_field(const boost::json::object& o, std::string_view name) {
    const auto& v = field(o, name);
    if (const auto* i = v.if_int64(); i != nullptr && *i >= 0) {
        return static_cast<std::uint64_t>(*i);
    }
    if (const auto* u = v.if_uint64()) {
        return *u;
    }
    bad_json("field '" + std::string(name) + "' must be a non-negative integer");
}

std::int64_t signed_field(const boost::json::object& o, std::string_view name) {
    const auto u = unsigned_field(o, name);
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        bad_json("field '" + std::string(name) + "' is out of range");
    }
    return static_cast<std::int64_t>(u);
}

}  // namespace

histogram::histogram(std::int64_t highest, int significant_digits)
    : highest_(highest), digits_(significant_digits) {
    if (highest < 2) {
        throw std::invalid_argument("histogram: highest must be >= 2, got " + std::to_string(highest));
    }
    if (significant_digits < 1 || significant_digits > 5) {
        throw std::invalid_argument("histogram: significant digits must be 1 to 5, got " +
                                    std::to_string(significant_digits));
    }
    // Values below 2·10^digits need unit resolution for the digits to hold;
    // round that up to a power of two of sub-buckets.
    std::int64_t single_unit_limit = 2;
    for (int i = 0; i < significant_digits; ++i) {
        single_unit_limit *= 10;
    }
    const int magnitude = std::bit_width(static_cast<std::uint64_t>(single_unit_limit - 1));
    half_magnitude_ = magnitude - 1;
    sub_bucket_mask_ = (std::int64_t{1} << magnitude) - 1;
    buckets_ = index_of(highest) + 1;
}

std::size_t histogram::index_of(std::int64_t value) const noexcept {
    const auto v = static_cast<std::uint64_t>(value);
    // Bucket b holds [half·2^(b+1), half·2^(b+2)) in steps of 2^b (bucket 0
    // also holds [0, half·2)); only its upper half of sub-buckets is stored.
    const int pow2_ceiling = 64 - std::countl_zero(v | static_cast<std::uint64_t>(sub_bucket_mask_));
    const int bucket = pow2_ceiling - (half_magnitude_ + 1);
    const auto sub = static_cast<std::size_t>(v >> bucket);
    const std::size_t half = std::size_t{1} << half_magnitude_;
    return (static_cast<std::size_t>(bucket + 1) << half_magnitude_) + sub - half;
}

std::int64_t histogram::representative(std::size_t index) const noexcept {
    const std::size_t half = std::size_t{1} << half_magnitude_;
    int bucket = static_cast<int>(index >> half_magnitude_) - 1;
    auto sub = static_cast<std::int64_t>((index & (half - 1)) + half);
    if (bucket < 0) {
        sub -= static_cast<std::int64_t>(half);
        bucket = 0;
    }
    const std::int64_t lowest = sub << bucket;
    const std::int64_t middle = lowest + ((std::int64_t{1} << bucket) >> 1);
    return std::clamp(middle, min_, max_);
}

void histogram::record(std::int64_t value) noexcept { record(value, 1); }

void histogram::record(std::int64_t value, std::uint64_t count) noexcept {
    if (count == 0) {
        return;
    }
    if (value < 0) {
        value = 0;
    } else if (value > highest_) {
        value = highest_;
        saturated_ += count;
    }
    if (counts_.empty()) {
        counts_.assign(buckets_, 0);
    }
    counts_[index_of(value)] += count;
    count_ += count;
    sum_ += static_cast<sum_type>(static_cast<std::uint64_t>(value)) * count;
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
}

void histogram::record_infinite(std::uint64_t count) noexcept {
    count_ += count;
    infinite_ += count;
}

void histogram::merge(const histogram& other) {
    if (other.highest_ != highest_ || other.digits_ != digits_) {
        throw std::invalid_argument(
            "histogram::merge: configurations differ (highest " + std::to_string(highest_) + " vs " +
            std::to_string(other.highest_) + ", significant digits " + std::to_string(digits_) + " vs " +
            std::to_string(other.digits_) + ")");
    }
    if (counts_.empty()) {
        counts_ = other.counts_;
    } else {
        for (std::size_t i = 0; i < other.counts_.size(); ++i) {
            counts_[i] += other.counts_[i];
        }
    }
    count_ += other.count_;
    saturated_ += other.saturated_;
    infinite_ += other.infinite_;
    sum_ += other.sum_;
    min_ = std::min(min_, other.min_);
    max_ = std::max(max_, other.max_);
}

bool histogram::operator==(const histogram& o) const noexcept {
    if (highest_ != o.highest_ || digits_ != o.digits_ || count_ != o.count_ || saturated_ != o.saturated_ ||
        infinite_ != o.infinite_ || min_ != o.min_ || max_ != o.max_ || sum_ != o.sum_) {
        return false;
    }
    // No counts yet reads as all zero: compare bucket by bucket.
    const auto at = [](const std::vector<std::uint64_t>& c, std::size_t i) { return i < c.size() ? c[i] : 0; };
    for (std::size_t i = 0; i < buckets_; ++i) {
        if (at(counts_, i) != at(o.counts_, i)) {
            return false;
        }
    }
    return true;
}

void histogram::reset() noexcept {
    std::fill(counts_.begin(), counts_.end(), 0);
    count_ = 0;
    saturated_ = 0;
    infinite_ = 0;
    min_ = std::numeric_limits<std::int64_t>::max();
    max_ = 0;
    sum_ = 0;
}

double histogram::mean() const noexcept {
    if (infinite_ > 0) return std::numeric_limits<double>::infinity();
    return count_ == 0 ? 0.0 : static_cast<double>(sum_) / static_cast<double>(count_);
}

double histogram::stddev() const noexcept {
    if (infinite_ > 0) return std::numeric_limits<double>::infinity();
    if (count_ == 0) {
        return 0.0;
    }
    const double m = mean();
    long double acc = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        if (counts_[i] != 0) {
            const long double d = static_cast<long double>(representative(i)) - m;
            acc += static_cast<long double>(counts_[i]) * d * d;
        }
    }
    return static_cast<double>(std::sqrt(acc / static_cast<long double>(count_)));
}

std::int64_t histogram::percentile(double p) const {
    if (!(p >= 0.0 && p <= 100.0)) {
        throw std::invalid_argument("histogram::percentile: p must be in [0, 100], got " + std::to_string(p));
    }
    if (count_ == 0) {
        return 0;
    }
    if (p == 0.0) {
        return min();
    }
    if (p == 100.0) {
        return max();
    }
    // The relative nudge keeps p·n/100 that is an integer in exact arithmetic
    // (99.9 % of 1000) from rounding up to the next rank.
    const double exact_rank = p / 100.0 * static_cast<double>(count_);
    const auto rank = std::clamp<std::uint64_t>(
        static_cast<std::uint64_t>(std::ceil(exact_rank * (1.0 - 1e-12))), 1, count_);
    if (rank > finite()) return infinite;  // the infinite samples sort last
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
        seen += counts_[i];
        if (seen >= rank) {
            return representative(i);
        }
    }
    return max_;
}

std::uint64_t histogram::count_at_or_below(std::int64_t value) const noexcept {
    if (value < 0) {
        return 0;
    }
    if (value >= max_) {
        return finite();
    }
    const std::size_t last = index_of(value);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i <= last; ++i) {
        seen += counts_[i];
    }
    return seen;
}

boost::json::object histogram::to_json() const {
    boost::json::object o;
    o["highest"] = highest_;
    o["significant_digits"] = digits_;
    o["count"] = count_;
    o["saturated"] = saturated_;
    if (infinite_ > 0) o["infinite"] = infinite_;
    o["min"] = finite() == 0 ? 0 : min_;
    o["max"] = finite() == 0 ? 0 : max_;
    if (sum_ <= std::numeric_limits<std::uint64_t>::max()) {
        o["sum"] = static_cast<std::uint64_t>(sum_);
    } else {
        std::string digits;
        for (sum_type s = sum_; s != 0; s /= 10) {
            digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(s % 10)));
        }
        o["sum"] = digits;
    }
    boost::json::array counts;
    std::int64_t zeros = 0;
    for (const auto c : counts_) {
        if (c == 0) {
            ++zeros;
            continue;
        }
        if (zeros != 0) {
            counts.emplace_back(-zeros);
            zeros = 0;
        }
        counts.emplace_back(c);
    }
    o["counts"] = std::move(counts);
    return o;
}

histogram histogram::from_json(const boost::json::value& json) {
    const auto* o = json.if_object();
    if (o == nullptr) {
        bad_json("expected an object");
    }
    const auto highest = signed_field(*o, "highest");
    const auto digits = signed_field(*o, "significant_digits");
    if (digits > 5) {
        bad_json("field 'significant_digits' must be 1 to 5, got " + std::to_string(digits));
    }
    histogram h = [&] {
        try {
            return histogram(highest, static_cast<int>(digits));
        } catch (const std::invalid_argument& e) {
            bad_json(e.what());
        }
    }();

    const auto* counts = field(*o, "counts").if_array();
    if (counts == nullptr) {
        bad_json("field 'counts' must be an array");
    }
    if (!counts->empty()) {
        h.counts_.assign(h.buckets_, 0);
    }
    std::size_t index = 0;
    std::uint64_t total = 0;
    for (std::size_t k = 0; k < counts->size(); ++k) {
        const auto& v = (*counts)[k];
        const std::string where = "field 'counts' element " + std::to_string(k);
        std::uint64_t c = 0;
        if (const auto* i = v.if_int64()) {
            if (*i == 0) {
                bad_json(where + " is 0 (empty buckets are written as a negative run)");
            }
            if (*i < 0) {
                const auto run = static_cast<std::uint64_t>(-(*i + 1)) + 1;
                if (run > h.buckets_ - index) {
                    bad_json(where + " runs past the " + std::to_string(h.buckets_) + " buckets");
                }
                index += static_cast<std::size_t>(run);
                continue;
            }
            c = static_cast<std::uint64_t>(*i);
        } else if (const auto* u = v.if_uint64()) {
            c = *u;
        } else {
            bad_json(where + " must be an integer");
        }
        if (index >= h.buckets_) {
            bad_json(where + " runs past the " + std::to_string(h.buckets_) + " buckets");
        }
        if (c > std::numeric_limits<std::uint64_t>::max() - total) {
            bad_json("field 'counts' sums past 2^64");
        }
        h.counts_[index++] = c;
        total += c;
    }

    h.count_ = unsigned_field(*o, "count");
    h.infinite_ = o->contains("infinite") ? unsigned_field(*o, "infinite") : 0;
    if (h.infinite_ > h.count_ || h.count_ - h.infinite_ != total) {
        bad_json("field 'count' is " + std::to_string(h.count_) + " but field 'counts' sums to " +
                 std::to_string(total) + (h.infinite_ > 0 ? " and field 'infinite' is " + std::to_string(h.infinite_) : ""));
    }
    h.saturated_ = unsigned_field(*o, "saturated");
    if (h.saturated_ > total) {
        bad_json("field 'saturated' exceeds field 'count'");
    }

    const auto& sum = field(*o, "sum");
    if (const auto* s = sum.if_string()) {
        if (s->empty()) {
            bad_json("field 'sum' is an empty string");
        }
        for (const char ch : *s) {
            if (ch < '0' || ch > '9') {
                bad_json("field 'sum' must be a decimal integer");
            }
            const auto digit = static_cast<unsigned>(ch - '0');
            if (h.sum_ > (~sum_type{0} - digit) / 10) {
                bad_json("field 'sum' is out of range");
            }
            h.sum_ = h.sum_ * 10 + digit;
        }
    } else {
        h.sum_ = unsigned_field(*o, "sum");
    }

    const auto min = signed_field(*o, "min");
    const auto max = signed_field(*o, "max");
    if (total == 0) {
        if (min != 0 || max != 0 || h.sum_ != 0) {
            bad_json("fields 'min', 'max' and 'sum' must be 0 when field 'count' is 0");
        }
        return h;
    }
    const auto non_zero = [](std::uint64_t c) { return c != 0; };
    const auto first = static_cast<std::size_t>(
        std::find_if(h.counts_.begin(), h.counts_.end(), non_zero) - h.counts_.begin());
    const auto last = h.counts_.size() - 1 -
                      static_cast<std::size_t>(
                          std::find_if(h.counts_.rbegin(), h.counts_.rend(), non_zero) - h.counts_.rbegin());
    if (min > max || max > highest || h.index_of(min) != first || h.index_of(max) != last) {
        bad_json("fields 'min' and 'max' disagree with field 'counts'");
    }
    h.min_ = min;
    h.max_ = max;
    if (h.sum_ < static_cast<sum_type>(min) * total || h.sum_ > static_cast<sum_type>(max) * total) {
        bad_json("field 'sum' is outside count · [min, max]");
    }
    return h;
}

}  // namespace openloop
