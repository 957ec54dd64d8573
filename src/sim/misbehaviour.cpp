#include "openloop/sim/misbehaviour.hpp"

#include <unistd.h>

namespace openloop {

double step_time_factor(const misbehaviour_config& m, double age_s) {
    double f = 1 + m.slowdown_per_hour * age_s / 3600;
    if (m.slowdown_step_at_s >= 0 && age_s >= m.slowdown_step_at_s) f *= m.slowdown_step_factor;
    return f;
}

bool leak_store::leak(std::int64_t bytes) {
    if (bytes <= 0) return true;
    if (bytes > limit_ - bytes_) {
        ++refused_;
        return false;
    }
    const auto n = static_cast<std::size_t>(bytes);
    // Default-initialised: the pages stay unmapped until written.
    std::unique_ptr<unsigned char[]> block(new unsigned char[n]);
    static const auto page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    for (std::size_t i = 0; i < n; i += page) block[i] = 1;
    block[n - 1] = 1;
    blocks_.push_back(std::move(block));
    bytes_ += bytes;
    return true;
}

}  // namespace openloop
