#pragma once
// The values of one trace cell, read from their text: times in a unit or
// ISO-8601, token counts, prefix block ids. Exact decimal arithmetic, no
// floating point, so 17 significant digits (as pandas writes a float) keep
// every nanosecond the text holds. Pure logic.

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// One bad cell or row; the trace parser adds file:line and decides whether to
// skip it. what() names the field: `field "X": expected ..., got "..."`.
struct trace_row_error : std::runtime_error {
    using std::runtime_error::runtime_error;
};

enum class time_unit { s, ms, us, ns, iso };

std::string_view to_string(time_unit unit);

// A non-negative decimal number in unit (s, ms, us, ns: "12", "12.5",
// "1.2345678901234567e3", ".5") to ns; digits beyond the ns are rounded half
// up. iso: "2024-05-01T12:00:00.123456Z", "+02:00" / "-0530" offsets, a space
// instead of T, no zone (taken as UTC), any number of fractional digits
// (rounded to the ns); ns since 1970. Negative results and times past
// 2262 (int64 ns) are refused. Throws trace_row_error naming field.
std::int64_t parse_time_ns(std::string_view field, std::string_view text, time_unit unit);

// A token count: a non-negative integer up to 2^31-1; an integral decimal
// ("374.0", "3.74e2", as a float column writes it) is fine.
int parse_token_count(std::string_view field, std::string_view text);

// One block id: a non-negative integer that fits 64 bits.
std::uint64_t parse_block_id(std::string_view field, std::string_view text);

// Block ids written in one cell: a JSON array ("[1, 2, 3]") or ids
// separated by blanks, ',', ';' or '|'. Empty text is no ids.
std::vector<std::uint64_t> parse_block_ids(std::string_view field, std::string_view text);

// s quoted for a message, cut at 60 characters.
std::string quoted_value(std::string_view s);

}  // namespace openloop
