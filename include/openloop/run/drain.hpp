#pragma once
// How long a run waits after its last send for the requests still in flight,
// when --drain does not say. A server that accepts and never answers, or
// streams forever, would otherwise keep a bounded run from ever ending; past
// the limit the leftovers are cancelled and counted as cancelled_at_end.

#include <optional>

namespace openloop {

// The default drain is drain_multiple times the longest end-to-end latency
// seen so far, within [drain_floor_s, drain_ceiling_s]: long enough for the
// slowest request the run has already seen to finish again, with margin.
inline constexpr double drain_multiple = 3.0;
inline constexpr double drain_floor_s = 10.0;
inline constexpr double drain_ceiling_s = 300.0;

// longest_e2e_s: the longest send-to-end time of the requests that ended so
// far (completed or failed); none when none ended. first_send_age_s: how long
// ago the first request was sent, a lower bound on the E2E of a request that
// has not ended, which stands in when nothing ended yet.
double default_drain_s(std::optional<double> longest_e2e_s, double first_send_age_s);

}  // namespace openloop
