#pragma once
// A multi-turn run's sessions and turns rendered: summary.json's "sessions"
// object and the table's section. Pure: from session_stats alone.

#include "openloop/measure/session_stats.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace openloop {

// {"started", "completed", "failed", "cut", "turns_planned", "turns_completed",
//  "latency_ms": {p50, p90, p99, mean, max}, "by_turn": [{"turn" (from 1), "completed",
//  "failed", "ttft_ms", "e2el_ms", ("and_later": true on the last tracked row), "mean_prompt_tokens", "mean_cached_tokens",
//  "ttft_per_prompt_token_ms": {...}}, ...]}.
boost::json::object sessions_json(const session_stats& s);

// The table's lines: sessions, their latency, then a row per turn (the first
// max_turn_rows, then a line saying how many more).
inline constexpr std::size_t max_turn_rows = 12;
std::vector<std::string> session_lines(const session_stats& s);

}  // namespace openloop
