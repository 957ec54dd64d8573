#include "openloop/measure/session_stats.hpp"

#include "openloop/measure/event.hpp"
#include <algorithm>

namespace openloop {

double turn_stats::mean_prompt_tokens() const {
    return with_usage > 0 ? static_cast<double>(prompt_tokens) / static_cast<double>(with_usage) : 0.0;
}

double turn_stats::mean_cached_tokens() const {
    return with_usage > 0 ? static_cast<double>(cached_tokens) / static_cast<double>(with_usage) : 0.0;
}

double turn_stats::mean_output_tokens() const {
    return with_output > 0 ? static_cast<double>(output_tokens) / static_cast<double>(with_output) : 0.0;
}

turn_stats& session_stats::turn(int k) {
    if (turns.size() <= static_cast<std::size_t>(k)) turns.resize(static_cast<std::size_t>(k) + 1);
    return turns[static_cast<std::size_t>(k)];
}

void session_stats::completed_turn(std::uint64_t request, std::int64_t ttft_ns, std::int64_t e2e_ns,
                                   std::int64_t prompt_tokens, std::int64_t cached_tokens, std::int64_t output_tokens,
                                   bool tool_call) {
    turn_stats& t = turn(turn_of(request));
    ++t.completed;
    if (output_tokens >= 0) {
        ++t.with_output;
        t.output_tokens += output_tokens;
    }
    if (tool_call) {
        ++t.tool_calls;
        ++tool_calls;
    }
    if (ttft_ns >= 0) t.ttft.record(ttft_ns);
    if (e2e_ns >= 0) t.e2e.record(e2e_ns);
    if (prompt_tokens > 0) {
        ++t.with_usage;
        t.prompt_tokens += prompt_tokens;
        t.cached_tokens += std::max<std::int64_t>(cached_tokens, 0);
        if (ttft_ns >= 0) t.ttft_per_prompt_token.record(ttft_ns / prompt_tokens);
    }
}

void session_stats::failed_turn(std::uint64_t request) { ++turn(turn_of(request)).failed; }

void session_stats::session_ended(std::int64_t end_ns, std::int64_t first_intended_ns, std::int64_t turns_done,
                                  std::int64_t planned, std::uint8_t flags) {
    ++started;
    turns_planned += static_cast<std::uint64_t>(std::max<std::int64_t>(planned, 0));
    turns_completed += static_cast<std::uint64_t>(std::max<std::int64_t>(turns_done, 0));
    if (flags & session_failed) {
        ++failed;
    } else if (flags & session_cut) {
        ++cut;
    } else {
        ++completed;
        latency.record(end_ns - first_intended_ns);
    }
}

}  // namespace openloop
