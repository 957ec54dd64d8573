#pragma once
// The one clock of every event, and the wall clock where shards on other
// hosts meet (run/start_clock.hpp).

#include <chrono>
#include <cstdint>

namespace openloop {

// Nanoseconds of these clocks as the milliseconds results are written in.
inline constexpr double ns_to_ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// The clock of deadlines and timers; steady_now_ns() reads the same one.
using steady = std::chrono::steady_clock;

// Steady-clock (CLOCK_MONOTONIC) nanoseconds: comparable between openloop and
// its simulator on one host.
inline std::int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

// Wall-clock (CLOCK_REALTIME) nanoseconds since 1970: comparable between hosts
// only as far as their clocks are synchronised.
inline std::int64_t wall_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

}  // namespace openloop
