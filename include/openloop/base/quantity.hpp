#pragma once
// The one reading of numbers, durations and fractions written as text. Flags,
// SLOs, --goodput thresholds, rate profiles and scenario files all parse here,
// so a spelling means the same wherever it is written. Pure: no I/O, and no
// dependency on any stage, so every stage may include it.
//
//   number    2, -1, 0.5, .5, 1e3            (decimal; inf and nan are not numbers)
//   integer   20, -1                          (whole; no fraction, no exponent)
//   duration  250ms, 1.5s, 0.5, 2m, 1h, 500us (>= 0 and at most max_duration_s; units us or
//                                             µs, ms, s, m or min, h; a bare number is
//                                             seconds, everywhere)
//   fraction  0.01, 1%, 0.5 %                 (in [0, 1])
//
// Blanks around the text, and between a number and its unit, are ignored.

#include "openloop/base/input_error.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// Text that is not the quantity asked for. what() starts with the field (a
// flag such as "--duration", when one was given), quotes the text, says what
// is wrong and shows the accepted spelling.
struct quantity_error : input_error {
    using input_error::input_error;
};

// The longest duration any value may spell, about 31.7 years: far beyond any
// run, and small enough that every duration fits a 64-bit count of
// nanoseconds, so no caller's conversion can overflow.
inline constexpr double max_duration_s = 1e9;

// Bytes in a MiB, the unit memory figures are written in.
inline constexpr double bytes_per_mib = 1024.0 * 1024.0;

// How a duration is written, for --help and messages.
inline constexpr std::string_view duration_syntax =
    "a number with unit us, ms, s, m or h, e.g. 250ms, 1.5s, 2m; a bare number is seconds";

// The number or integer text spells; empty when it spells none (or, for an
// integer, one beyond 64 bits).
std::optional<double> as_number(std::string_view text);
std::optional<std::int64_t> as_integer(std::string_view text);

double parse_number(std::string_view text, std::string_view field);
std::int64_t parse_integer(std::string_view text, std::string_view field);

double parse_duration_s(std::string_view text, std::string_view field);
// The same duration in milliseconds, scaled once from its own unit, so that
// "100ms" is exactly 100 and "0.5" (seconds) is exactly 500.
double parse_duration_ms(std::string_view text, std::string_view field);

double parse_fraction(std::string_view text, std::string_view field);

// The shortest text that reads back as v (as_number's inverse), e.g. 0.5, 1e-05.
std::string shortest_text(double v);

}  // namespace openloop
