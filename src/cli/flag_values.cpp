#include "openloop/cli/flag_values.hpp"

#include "openloop/cli/usage.hpp"

#include <charconv>
#include <cmath>

namespace openloop {

double parse_duration_s(std::string_view text, std::string_view flag) {
    const auto bad = [&] {
        return usage_error(std::string(flag) + ": '" + std::string(text) +
                           "' is not a duration (examples: 250ms, 10s, 2m, 1h, or plain seconds)");
    };
    if (text.empty()) throw bad();
    double value = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end == text.data()) throw bad();
    const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    double scale = 1;
    if (unit.empty() || unit == "s") scale = 1;
    else if (unit == "ms") scale = 1e-3;
    else if (unit == "us") scale = 1e-6;
    else if (unit == "m" || unit == "min") scale = 60;
    else if (unit == "h") scale = 3600;
    else throw bad();
    if (!(value >= 0) || !std::isfinite(value)) throw bad();
    return value * scale;
}

double parse_fraction(std::string text, std::string_view flag) {
    double scale = 1;
    while (!text.empty() && text.back() == ' ') text.pop_back();
    if (!text.empty() && text.back() == '%') {
        text.pop_back();
        scale = 0.01;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    v *= scale;
    if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !(v >= 0 && v <= 1))
        throw usage_error(std::string(flag) + " must be a fraction in [0, 1] such as 0.01 or 1%");
    return v;
}

}  // namespace openloop
