#pragma once
// Flag values that are not plain numbers: durations and fractions.

#include <string>
#include <string_view>

namespace openloop {

// "250ms", "10s", "2m", "1h", or plain seconds; throws usage_error naming the flag.
double parse_duration_s(std::string_view text, std::string_view flag);
// "1%", "0.5 %" or "0.01": a fraction in [0, 1]; throws usage_error naming the flag.
double parse_fraction(std::string text, std::string_view flag);

}  // namespace openloop
