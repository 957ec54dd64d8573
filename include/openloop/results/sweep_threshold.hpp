#pragma once
// Absolute gates on a sweep, as --threshold is on a run: `knee>50` passes when
// the sweep shows the saturation knee at 50 req/s or above. A sweep knows a
// knee only between two stages (sweep_compare.hpp), so a gate holds only when
// the whole bracket is on its side: knee>R needs the last rate sustained to be
// at least R, knee<R the first rate past the knee to be at most R. A knee the
// sweep does not have (slo_knee without --slo) fails. Pure.

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

struct sweep_threshold {
    std::string text;  // as written
    std::string knee;  // knee, slo_knee or latency_knee
    bool below = false;
    double rate = 0;   // req/s
};

// Throws std::invalid_argument naming the threshold and what is wrong.
sweep_threshold parse_sweep_threshold(std::string_view text);
// Why the sweep (its sweep.json) fails t; nullopt when it holds.
std::optional<std::string> sweep_threshold_failure(const sweep_threshold& t, const boost::json::object& sweep);

}  // namespace openloop
