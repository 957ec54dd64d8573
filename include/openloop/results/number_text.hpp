#pragma once
// How results print numbers: printf of one value, and milliseconds at about
// four significant digits, shared by the verdict's reasons and the tables.

#include <cstdint>
#include <string>

namespace openloop {

// printf of one number.
std::string fmt(const char* format, double v);

// The printf format giving about four significant digits at the magnitude of
// `scale` ms ("%.3f" below 10 ... "%.0f" from 10000).
const char* ms_format(double scale);

// v ms at its own magnitude's precision.
std::string fmt_ms(double v);

// For a table cell: four significant digits, and fmt_ms; "-" for a figure that is not (NaN).
std::string figure_text(double v);
std::string ms_text(double v);

// ns since 1970 as RFC 3339 in UTC to the microsecond: "2026-12-03T10:40:00.000250Z".
std::string utc_text(std::int64_t ns);

}  // namespace openloop
