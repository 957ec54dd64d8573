#include "openloop/load/trace_selection.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace openloop {

std::vector<trace_entry> window_trace(std::vector<trace_entry> entries, std::int64_t start_ns, std::int64_t end_ns) {
    if (start_ns < 0) throw std::invalid_argument("trace window start must be >= 0");
    if (end_ns >= 0 && end_ns < start_ns) throw std::invalid_argument("trace window end is before its start");
    std::erase_if(entries, [&](const trace_entry& e) { return e.at_ns < start_ns || (end_ns >= 0 && e.at_ns >= end_ns); });
    for (trace_entry& e : entries) e.at_ns -= start_ns;
    return entries;
}

std::vector<trace_entry> scale_trace(std::vector<trace_entry> entries, double speed) {
    if (!(speed > 0) || !std::isfinite(speed))
        throw std::invalid_argument("trace speed must be a positive number, got " + std::to_string(speed));
    if (speed == 1.0) return entries;
    // Slowed down, a time near the 292-year end of int64 ns would overflow and
    // land before its predecessors: clamped, the order stays (found by fuzzing).
    constexpr auto latest = static_cast<long double>(std::numeric_limits<std::int64_t>::max());
    for (trace_entry& e : entries)
        e.at_ns = std::llround(std::min(static_cast<long double>(e.at_ns) / speed, latest));
    return entries;
}

std::vector<trace_entry> limit_trace(std::vector<trace_entry> entries, std::size_t max_count) {
    if (max_count > 0 && entries.size() > max_count) entries.resize(max_count);
    return entries;
}

double trace_mean_rate(const std::vector<trace_entry>& entries) {
    if (entries.size() < 2) return 0;
    const std::int64_t span = entries.back().at_ns - entries.front().at_ns;
    return span > 0 ? double(entries.size() - 1) / (double(span) / 1e9) : 0;
}

trace_pick pick_trace(std::vector<trace_entry> entries, const trace_selection& selection) {
    trace_pick out;
    out.entries = limit_trace(window_trace(std::move(entries), selection.start_ns, selection.end_ns), selection.max_count);
    out.speed = selection.speed;
    if (selection.rate > 0) {
        const double rate = trace_mean_rate(out.entries);
        if (rate <= 0)
            throw std::invalid_argument("a rate needs at least two requests at different times in the trace selection (" +
                                        std::to_string(out.entries.size()) + " selected)");
        out.speed = selection.rate / rate;
    }
    out.entries = scale_trace(std::move(out.entries), out.speed);
    return out;
}

std::vector<trace_entry> select_trace(std::vector<trace_entry> entries, const trace_selection& selection) {
    return pick_trace(std::move(entries), selection).entries;
}

}  // namespace openloop
