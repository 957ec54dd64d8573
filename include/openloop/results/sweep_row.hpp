#pragma once
// Reading a sweep stage row (an entry of sweep.json's "stages"): figures that
// may be missing, and how the tables print them.

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace openloop::sweep_row {

// The number at key, or nullopt when missing or not a number.
std::optional<double> number(const boost::json::object& o, std::string_view key);
// row[family][stat], e.g. at(row, "ttft_ms", "p99").
std::optional<double> at(const boost::json::object& row, std::string_view family, std::string_view stat);
// printf of one number.
std::string fmt(const char* format, double v);
// A table cell: the number in format, or "-".
std::string cell(std::optional<double> v, const char* format = "%.1f");
// "25.0 % (30 stream_truncated, 2 http_5xx)": a stage's failures in brief.
std::string error_breakdown(const boost::json::object& row);

}  // namespace openloop::sweep_row
