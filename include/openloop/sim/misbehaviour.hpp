#pragma once
// What `openloop sim` gets wrong on purpose for soak tests, so that drift
// verdicts are tested against a server that really misbehaves, in compressed
// time: memory it leaks per request (really allocated and resident), and an
// engine step time that grows with the server's age. Age is wall-clock time
// since the server started (steady clock), not requests served: a soak sees
// the same creep whatever its rate. Pure arithmetic and a bounded store; the
// server owns the clock.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace openloop {

struct misbehaviour_config {
    std::int64_t leak_bytes_per_request = 0;
    std::int64_t leak_limit_bytes = std::int64_t{8} << 30;  // the store refuses beyond it
    double slowdown_per_hour = 0;   // step time x (1 + F x hours since start)
    double slowdown_step_at_s = -1; // from this age (s) on, step time x slowdown_step_factor; < 0: never
    double slowdown_step_factor = 2;
};

// The factor on the engine's step time at age_s seconds after the start.
double step_time_factor(const misbehaviour_config& m, double age_s);

// Memory kept for the life of the process. One allocation per leak, every
// page written so that it is resident (RSS), not just reserved.
class leak_store {
public:
    explicit leak_store(std::int64_t limit_bytes) : limit_(limit_bytes) {}

    // Leaks bytes; false (and counted) when that would pass the limit.
    bool leak(std::int64_t bytes);

    std::int64_t bytes() const { return bytes_; }
    std::int64_t refused() const { return refused_; }

private:
    std::int64_t limit_;
    std::int64_t bytes_ = 0;
    std::int64_t refused_ = 0;
    std::vector<std::unique_ptr<unsigned char[]>> blocks_;
};

}  // namespace openloop
