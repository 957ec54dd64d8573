#pragma once
// The one clock of every event.

#include <chrono>
#include <cstdint>

namespace openloop {

// Steady-clock (CLOCK_MONOTONIC) nanoseconds: comparable between openloop and
// its simulator on one host.
inline std::int64_t steady_now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

}  // namespace openloop
