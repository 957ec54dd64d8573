#pragma once
// What a multi-turn run adds to its statistics: per turn index, the latency
// and the prompt the server saw and cached (turn 1 against turn 8 shows the
// prefix cache at work), and per session, first send to last token. Pure: the
// reporter calls it as requests and sessions end.

#include "openloop/measure/histogram.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace openloop {

struct turn_stats {
    std::uint64_t completed = 0, failed = 0;
    histogram ttft, e2e;
    // TTFT over the prompt tokens the server counted, ns per token: a cached
    // history makes it fall turn by turn.
    histogram ttft_per_prompt_token;
    std::uint64_t with_usage = 0;  // completed with usage.prompt_tokens
    std::int64_t prompt_tokens = 0, cached_tokens = 0;  // summed over those
    // An agent's step: what it generated (a tool call's arguments, or the answer), and how many were tool calls.
    std::uint64_t with_output = 0;
    std::int64_t output_tokens = 0;
    std::uint64_t tool_calls = 0;
    double mean_prompt_tokens() const;
    double mean_cached_tokens() const;
    double mean_output_tokens() const;
};

// Turns past this share the last row (each row holds three histograms of some
// 260 KiB: a thousand-turn conversation must not cost the reporter 800 MiB).
inline constexpr int tracked_turns = 64;

struct session_stats {
    int stride = 0;  // 0: not a sessions run; else the request index of turn k of session s is s * stride + k
    std::uint64_t started = 0;    // measured sessions ended, however they ended
    std::uint64_t completed = 0;  // every turn completed
    std::uint64_t failed = 0;     // a turn failed or was refused
    std::uint64_t cut = 0;        // the run ended first
    std::uint64_t turns_planned = 0, turns_completed = 0;
    std::uint64_t tool_calls = 0;  // measured turns answered with a tool call
    histogram latency;  // completed sessions: first turn's intended send to last turn's end, ns
    std::vector<turn_stats> turns;  // index k: turn k + 1; the last of tracked_turns rows holds every later turn too

    bool enabled() const { return stride > 0; }
    // The row of a request's turn (from 0).
    int turn_of(std::uint64_t request) const {
        return std::min(static_cast<int>(request % static_cast<std::uint64_t>(stride)), tracked_turns - 1);
    }
    turn_stats& turn(int k);
    // ttft_ns, e2e_ns: -1 where undefined (request_metrics); prompt and cached tokens from usage, -1: none;
    // output_tokens: -1 when not counted; tool_call: the answer was a tool call.
    void completed_turn(std::uint64_t request, std::int64_t ttft_ns, std::int64_t e2e_ns, std::int64_t prompt_tokens,
                        std::int64_t cached_tokens, std::int64_t output_tokens = -1, bool tool_call = false);
    void failed_turn(std::uint64_t request);
    // A session_end event's figures (event.hpp).
    void session_ended(std::int64_t end_ns, std::int64_t first_intended_ns, std::int64_t turns_completed,
                       std::int64_t turns_planned, std::uint8_t flags);
};

}  // namespace openloop
