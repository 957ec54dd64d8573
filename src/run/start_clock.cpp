#include "openloop/run/start_clock.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/load/trace_values.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace openloop {

start_clock plan_start(std::int64_t start_at_ns, std::int64_t wall_minus_steady_ns, std::int64_t now_steady_ns,
                       std::int64_t lead_in_ns) {
    start_clock c;
    c.start_at_ns = start_at_ns;
    c.wall_minus_steady_ns = wall_minus_steady_ns;
    if (start_at_ns < 0) {
        c.origin_steady_ns = now_steady_ns + lead_in_ns;
        return c;
    }
    const std::int64_t asked = start_at_ns - wall_minus_steady_ns;
    c.origin_steady_ns = asked >= now_steady_ns ? asked : now_steady_ns;
    c.late_ns = c.origin_steady_ns - asked;
    return c;
}

std::int64_t parse_start_at(std::string_view text, std::int64_t now_wall_ns) {
    const std::string forms = "--start-at \"" + std::string(text) +
                              "\": expected an RFC 3339 time (2026-12-03T10:00:00Z), @SECONDS since 1970 or "
                              "+DURATION from now (+30s)";
    try {
        if (!text.empty() && text.front() == '+') {
            const double s = parse_duration_s(text.substr(1), "--start-at");
            if (!std::isfinite(s)) throw std::invalid_argument("not finite");
            return now_wall_ns + static_cast<std::int64_t>(std::llround(s * 1e9));
        }
        if (!text.empty() && text.front() == '@') return parse_time_ns("--start-at", text.substr(1), time_unit::s);
        if (text.size() < 11 || (text[10] != 'T' && text[10] != 't' && text[10] != ' ')) throw std::invalid_argument("no date and time");
        return parse_time_ns("--start-at", text, time_unit::iso);
    } catch (const std::exception&) {
        throw std::invalid_argument(forms);
    }
}

}  // namespace openloop
