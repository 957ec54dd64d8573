#include "openloop/load/trace_values.hpp"

#include "openloop/base/trim.hpp"

#include <algorithm>
#include <limits>

namespace openloop {
namespace {

constexpr std::uint64_t int64_max = std::numeric_limits<std::int64_t>::max();

bool is_digit(char c) { return c >= '0' && c <= '9'; }

trace_row_error bad(std::string_view field, std::string_view expected, std::string_view text) {
    return trace_row_error("field \"" + std::string(field) + "\": expected " + std::string(expected) + ", got " +
                           quoted_value(text));
}

// A decimal literal: INT[.FRAC][e[+-]EXP], at least one digit in INT or FRAC.
struct decimal {
    std::string_view int_digits, frac_digits;
    long exponent = 0;
};

bool parse_decimal(std::string_view v, decimal& d) {
    std::size_t i = 0;
    while (i < v.size() && is_digit(v[i])) ++i;
    d.int_digits = v.substr(0, i);
    if (i < v.size() && v[i] == '.') {
        const std::size_t start = ++i;
        while (i < v.size() && is_digit(v[i])) ++i;
        d.frac_digits = v.substr(start, i - start);
    }
    if (d.int_digits.empty() && d.frac_digits.empty()) return false;
    d.exponent = 0;
    if (i < v.size() && (v[i] == 'e' || v[i] == 'E')) {
        ++i;
        bool negative = false;
        if (i < v.size() && (v[i] == '+' || v[i] == '-')) negative = v[i++] == '-';
        const std::size_t start = i;
        // Beyond 10^6 every value is 0 or out of range; the clamp keeps the sum in a long.
        while (i < v.size() && is_digit(v[i])) d.exponent = std::min(d.exponent * 10 + (v[i++] - '0'), 1'000'000L);
        if (i == start) return false;
        if (negative) d.exponent = -d.exponent;
    }
    return i == v.size();
}

// d × 10^scale rounded half up to an integer in [0, max]; false when it is
// larger. exact: no nonzero digit was dropped.
bool scaled_integer(const decimal& d, long scale, std::uint64_t max, std::uint64_t& out, bool& exact) {
    const long n = long(d.int_digits.size() + d.frac_digits.size());
    auto digit = [&](long i) {
        return std::size_t(i) < d.int_digits.size() ? d.int_digits[std::size_t(i)] - '0'
                                                    : d.frac_digits[std::size_t(i) - d.int_digits.size()] - '0';
    };
    const long shift = d.exponent + scale - long(d.frac_digits.size());  // value = DIGITS × 10^shift
    const long keep = shift < 0 ? n + shift : n;
    std::uint64_t acc = 0;
    for (long i = 0; i < std::min(keep, n); ++i) {
        const auto x = std::uint64_t(digit(i));
        if (acc > (max - x) / 10) return false;
        acc = acc * 10 + x;
    }
    for (long z = 0; z < shift && acc != 0; ++z) {
        if (acc > max / 10) return false;
        acc *= 10;
    }
    exact = true;
    for (long i = std::max(keep, 0L); i < n; ++i) exact = exact && digit(i) == 0;
    if (keep >= 0 && keep < n && digit(keep) >= 5) {
        if (acc == max) return false;
        ++acc;
    }
    out = acc;
    return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const unsigned yoe = unsigned(y - era * 400);
    const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + std::int64_t(doe) - 719468;
}

std::int64_t parse_iso_ns(std::string_view field, std::string_view v) {
    auto fail = [&] {
        return bad(field, "an ISO-8601 time like 2024-05-01T12:00:00.123Z (or +02:00, or no zone)", v);
    };
    auto number = [&](std::size_t pos, std::size_t len) {
        if (pos + len > v.size()) throw fail();
        int out = 0;
        for (std::size_t i = pos; i < pos + len; ++i) {
            if (!is_digit(v[i])) throw fail();
            out = out * 10 + (v[i] - '0');
        }
        return out;
    };
    if (v.size() < 19 || v[4] != '-' || v[7] != '-' || (v[10] != ' ' && v[10] != 'T' && v[10] != 't') ||
        v[13] != ':' || v[16] != ':')
        throw fail();
    const int year = number(0, 4), month = number(5, 2), day = number(8, 2);
    const int hour = number(11, 2), minute = number(14, 2), second = number(17, 2);
    if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) throw fail();
    std::size_t i = 19;
    std::int64_t frac_ns = 0;
    if (i < v.size() && (v[i] == '.' || v[i] == ',')) {
        const std::size_t start = ++i;
        while (i < v.size() && is_digit(v[i])) ++i;
        if (i == start) throw fail();
        for (std::size_t k = 0; k < 9; ++k) frac_ns = frac_ns * 10 + (start + k < i ? v[start + k] - '0' : 0);
        if (start + 9 < i && v[start + 9] >= '5') ++frac_ns;  // may carry into the second, below
    }
    std::int64_t offset_s = 0;
    if (i < v.size() && (v[i] == 'Z' || v[i] == 'z')) {
        ++i;
    } else if (i < v.size() && (v[i] == '+' || v[i] == '-')) {
        const int sign = v[i] == '-' ? -1 : 1;
        const int oh = number(i + 1, 2);
        i += 3;
        int om = 0;
        if (i < v.size() && v[i] == ':') ++i;
        if (i < v.size()) {
            om = number(i, 2);
            i += 2;
        }
        if (oh > 23 || om > 59) throw fail();
        offset_s = sign * (oh * 3600 + om * 60);
    }
    if (i != v.size()) throw fail();
    const std::int64_t s = days_from_civil(year, unsigned(month), unsigned(day)) * 86400 + hour * 3600 +
                           minute * 60 + second - offset_s + frac_ns / 1'000'000'000;
    // Nanoseconds since 1970 fit int64 until 2262; within that every
    // difference between rows stays in range too.
    constexpr std::int64_t max_s = std::numeric_limits<std::int64_t>::max() / 1'000'000'000 - 1;
    if (s < 0 || s > max_s) throw fail();
    return s * 1'000'000'000 + frac_ns % 1'000'000'000;
}

}  // namespace

std::string quoted_value(std::string_view s) {
    constexpr std::size_t limit = 60;
    std::string out = "\"";
    out.append(s.substr(0, limit));
    if (s.size() > limit) out.append("...");
    out.push_back('"');
    return out;
}

std::string_view to_string(time_unit unit) {
    switch (unit) {
        case time_unit::s: return "s";
        case time_unit::ms: return "ms";
        case time_unit::us: return "us";
        case time_unit::ns: return "ns";
        case time_unit::iso: return "iso";
    }
    return "s";
}

std::int64_t parse_time_ns(std::string_view field, std::string_view text, time_unit unit) {
    const std::string_view v = trim(text, " \t\r");
    if (unit == time_unit::iso) return parse_iso_ns(field, v);
    const long scale = unit == time_unit::s ? 9 : unit == time_unit::ms ? 6 : unit == time_unit::us ? 3 : 0;
    decimal d;
    std::uint64_t ns = 0;
    bool exact = false;
    if (!parse_decimal(v, d) || !scaled_integer(d, scale, int64_max, ns, exact))
        throw bad(field,
                  "a non-negative time in " + std::string(to_string(unit)) +
                      " like 12.5 (a time up to 2262 in ns; other units: time=NAME:s|ms|us|ns|iso)",
                  text);
    return std::int64_t(ns);
}

int parse_token_count(std::string_view field, std::string_view text) {
    constexpr std::uint64_t max = std::numeric_limits<int>::max();
    decimal d;
    std::uint64_t n = 0;
    bool exact = false;
    if (!parse_decimal(trim(text, " \t\r"), d) || !scaled_integer(d, 0, max, n, exact) || !exact)
        throw bad(field, "a non-negative integer up to " + std::to_string(max), text);
    return int(n);
}

std::uint64_t parse_block_id(std::string_view field, std::string_view text) {
    const std::string_view v = trim(text, " \t\r");
    std::uint64_t out = 0;
    const bool ok = !v.empty() && std::all_of(v.begin(), v.end(), is_digit) && v.size() <= 20 &&
                    std::all_of(v.begin(), v.end(), [&](char c) {
                        const auto x = std::uint64_t(c - '0');
                        if (out > (std::numeric_limits<std::uint64_t>::max() - x) / 10) return false;
                        out = out * 10 + x;
                        return true;
                    });
    if (!ok) throw bad(field, "block ids that are non-negative 64-bit integers", text);
    return out;
}

std::vector<std::uint64_t> parse_block_ids(std::string_view field, std::string_view text) {
    std::string_view v = trim(text, " \t\r");
    if (v.starts_with('[')) {
        if (!v.ends_with(']')) throw bad(field, "block ids as a JSON array [1, 2] or separated by blanks, ; or |", text);
        v = v.substr(1, v.size() - 2);
    }
    constexpr std::string_view separators = " \t\r\n,;|";
    std::vector<std::uint64_t> out;
    for (std::size_t i = v.find_first_not_of(separators); i != std::string_view::npos;
         i = v.find_first_not_of(separators, i)) {
        const std::size_t end = std::min(v.find_first_of(separators, i), v.size());
        out.push_back(parse_block_id(field, v.substr(i, end - i)));
        i = end;
    }
    return out;
}

}  // namespace openloop
