#include "openloop/results/slo_observe.hpp"

#include <string_view>

namespace openloop {

const histogram* slo_histogram(const run_stats& stats, const slo& s) {
    if (s.metric == "ttft") return &stats.ttft;
    if (s.metric == "ttfa") return &stats.ttfa;
    if (s.metric == "reasoning") return &stats.reasoning_time;
    if (s.metric == "tpot") return &stats.tpot;
    if (s.metric == "itl") return &stats.itl;
    if (s.metric == "icl") return &stats.icl;
    if (s.metric == "e2e") return &stats.e2e;
    if (s.metric == "lag") return &stats.lag;
    return nullptr;
}

std::optional<double> observed(const slo& s, const run_result& result) {
    if (s.metric == "error_rate") {
        return result.errors.rate;
    }
    const histogram* h = slo_histogram(result.stats, s);
    return h != nullptr ? latency_ms(*h, s.stat) : std::nullopt;
}

slo_check check_slo(const slo& s, const run_result& result) {
    const auto value = observed(s, result);
    return check_slo(s, [&](std::string_view) { return value; });
}

}  // namespace openloop
