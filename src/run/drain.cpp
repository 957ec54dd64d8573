#include "openloop/run/drain.hpp"

#include <algorithm>

namespace openloop {

double default_drain_s(std::optional<double> longest_e2e_s, double first_send_age_s) {
    const double basis = longest_e2e_s.value_or(std::max(0.0, first_send_age_s));
    return std::clamp(drain_multiple * basis, drain_floor_s, drain_ceiling_s);
}

}  // namespace openloop
