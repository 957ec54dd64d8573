#include "openloop/results/sweep_threshold.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/results/sweep_compare.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace openloop {

namespace {

}  // namespace

sweep_threshold parse_sweep_threshold(std::string_view text) {
    sweep_threshold t;
    t.text = std::string(text);
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument("--threshold '" + t.text + "': " + why);
    };
    const std::size_t op = text.find_first_of("<>");
    if (op == std::string_view::npos || op == 0 || op + 1 >= text.size())
        throw bad("write KNEE>RATE or KNEE<RATE in req/s, e.g. knee>50 or slo_knee>20");
    t.knee = std::string(text.substr(0, op));
    if (t.knee != "knee" && t.knee != "slo_knee" && t.knee != "latency_knee")
        throw bad("a sweep is gated on its knees: knee (saturation), slo_knee or latency_knee, not '" + t.knee +
                  "' (a run's metrics are gated with openloop run --threshold)");
    t.below = text[op] == '<';
    const std::string_view limit = text.substr(op + 1);
    const auto rate = as_number(limit);
    if (!rate || !(*rate > 0) || !std::isfinite(*rate))
        throw bad("'" + std::string(limit) + "' is not a rate in req/s above 0");
    t.rate = *rate;
    return t;
}

std::optional<std::string> sweep_threshold_failure(const sweep_threshold& t, const boost::json::object& sweep) {
    const knee_bracket b = sweep_knee(sweep, t.knee);
    if (!b.known) return t.text + ": the sweep has no " + t.knee + (t.knee == "slo_knee" ? " (give --slo)" : "");
    const std::string where = std::isinf(b.high) ? "at " + sweep_rate_text(b.low) + " req/s or above"
                                                 : "between " + sweep_rate_text(b.low) + " and " + sweep_rate_text(b.high) + " req/s";
    const bool holds = t.below ? b.high <= t.rate : b.low >= t.rate;
    if (holds) return std::nullopt;
    return t.text + ": the " + t.knee + " lies " + where;
}

}  // namespace openloop
