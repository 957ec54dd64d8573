#include "openloop/base/quantity.hpp"

#include "openloop/base/trim.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>
#include <system_error>

namespace openloop {

namespace {

// The finite decimal number at the start of s, and what follows it, trimmed.
struct leading {
    double value = 0;
    std::string_view rest;
};
std::optional<leading> leading_number(std::string_view s) {
    s = trim(s);
    double value = 0;
    const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || ec != std::errc{} || !std::isfinite(value)) return std::nullopt;
    return leading{value, trim(s.substr(static_cast<std::size_t>(ptr - s.data())))};
}

[[noreturn]] void fail(std::string_view field, std::string_view text, std::string_view why,
                       std::string_view syntax) {
    std::string message;
    if (!field.empty()) message.append(field).append(": ");
    message.append("'").append(text).append("' ").append(why);
    if (!syntax.empty()) message.append(" (").append(syntax).append(")");
    throw quantity_error(message);
}

struct duration_unit {
    std::string_view name;
    double seconds;
    double milliseconds;  // written out, not seconds * 1000: each scale is then a single rounding
};
constexpr std::array<duration_unit, 9> duration_units = {{
    {"", 1, 1e3},
    {"s", 1, 1e3},
    {"ms", 1e-3, 1},
    {"us", 1e-6, 1e-3},
    {"\xC2\xB5s", 1e-6, 1e-3},  // µs, MICRO SIGN
    {"\xCE\xBCs", 1e-6, 1e-3},  // μs, GREEK SMALL LETTER MU
    {"m", 60, 60e3},
    {"min", 60, 60e3},
    {"h", 3600, 3600e3},
}};

// The duration's number and unit; throws naming field.
std::pair<double, const duration_unit*> duration_parts(std::string_view text, std::string_view field) {
    const auto n = leading_number(text);
    if (!n) fail(field, text, "is not a duration", duration_syntax);
    for (const auto& unit : duration_units) {
        if (unit.name != n->rest) continue;
        if (n->value < 0) fail(field, text, "is negative", duration_syntax);
        if (n->value * unit.seconds > max_duration_s) fail(field, text, "is too long (at most 1e9 s)", duration_syntax);
        return {n->value, &unit};
    }
    fail(field, text, "has an unknown unit '" + std::string(n->rest) + "'", duration_syntax);
}

}  // namespace

std::optional<double> as_number(std::string_view text) {
    const auto n = leading_number(text);
    if (!n || !n->rest.empty()) return std::nullopt;
    return n->value;
}

std::optional<std::int64_t> as_integer(std::string_view text) {
    text = trim(text);
    std::int64_t value = 0;
    const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (text.empty() || ec != std::errc{} || ptr != text.data() + text.size()) return std::nullopt;
    return value;
}

double parse_number(std::string_view text, std::string_view field) {
    const auto v = as_number(text);
    if (!v) fail(field, text, "is not a number", "e.g. 2, 0.5 or 1e3");
    return *v;
}

std::int64_t parse_integer(std::string_view text, std::string_view field) {
    const auto v = as_integer(text);
    if (!v) fail(field, text, "is not a whole number", "");
    return *v;
}

double parse_duration_s(std::string_view text, std::string_view field) {
    const auto [value, unit] = duration_parts(text, field);
    return value * unit->seconds;
}

double parse_duration_ms(std::string_view text, std::string_view field) {
    const auto [value, unit] = duration_parts(text, field);
    return value * unit->milliseconds;
}

double parse_fraction(std::string_view text, std::string_view field) {
    constexpr std::string_view syntax = "a fraction in [0, 1], e.g. 0.01 or 1%";
    const auto n = leading_number(text);
    if (!n || !(n->rest.empty() || n->rest == "%")) fail(field, text, "is not a fraction", syntax);
    const double v = n->rest.empty() ? n->value : n->value / 100.0;
    if (!(v >= 0 && v <= 1)) fail(field, text, "is out of range", syntax);
    return v;
}

std::string shortest_text(double v) {
    char buf[32];
    auto [ptr, ec] = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, ec == std::errc{} ? ptr : buf);
}

}  // namespace openloop
