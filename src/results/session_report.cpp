#include "openloop/results/session_report.hpp"

#include "openloop/results/number_text.hpp"
#include "openloop/results/run_result.hpp"

#include <algorithm>
#include <optional>

namespace openloop {

namespace {

namespace json = boost::json;

json::object latency_json(const histogram& h) {
    json::object o;
    for (const std::string_view stat : {"mean", "p50", "p90", "p99", "max"}) o[stat] = latency_ms_json(h, stat);
    return o;
}

std::string cell(const histogram& h, std::string_view stat) {
    const auto v = latency_ms(h, stat);
    return v ? fmt_ms(*v) : std::string("-");
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.insert(0, width - s.size(), ' ');
    return s;
}

}  // namespace

json::object sessions_json(const session_stats& s) {
    json::object o{{"started", s.started},
                   {"completed", s.completed},
                   {"failed", s.failed},
                   {"cut", s.cut},
                   {"turns_planned", s.turns_planned},
                   {"turns_completed", s.turns_completed},
                   {"tool_calls", s.tool_calls}};
    o["latency_ms"] = latency_json(s.latency);
    json::array turns;
    for (std::size_t k = 0; k < s.turns.size(); ++k) {
        const turn_stats& t = s.turns[k];
        json::object row{{"turn", k + 1}, {"completed", t.completed}, {"failed", t.failed}};
        if (k + 1 == static_cast<std::size_t>(tracked_turns)) row["and_later"] = true;
        row["ttft_ms"] = latency_json(t.ttft);
        row["e2el_ms"] = latency_json(t.e2e);
        row["mean_prompt_tokens"] = t.with_usage > 0 ? json::value(t.mean_prompt_tokens()) : json::value(nullptr);
        row["mean_cached_tokens"] = t.with_usage > 0 ? json::value(t.mean_cached_tokens()) : json::value(nullptr);
        row["ttft_per_prompt_token_ms"] = latency_json(t.ttft_per_prompt_token);
        row["mean_output_tokens"] = t.with_output > 0 ? json::value(t.mean_output_tokens()) : json::value(nullptr);
        row["tool_calls"] = t.tool_calls;
        turns.emplace_back(std::move(row));
    }
    o["by_turn"] = std::move(turns);
    return o;
}

std::vector<std::string> session_lines(const session_stats& s) {
    std::vector<std::string> out;
    out.push_back("sessions       " + std::to_string(s.started) + " ended: " + std::to_string(s.completed) +
                  " completed, " + std::to_string(s.failed) + " failed, " + std::to_string(s.cut) +
                  " cut short (Ctrl-C, --drain); " + std::to_string(s.turns_completed) + " of " +
                  std::to_string(s.turns_planned) + " turns completed" +
                  (s.tool_calls > 0 ? "; " + std::to_string(s.tool_calls) + " tool calls" : std::string()));
    out.push_back("session (ms)   p50 " + cell(s.latency, "p50") + "  p90 " + cell(s.latency, "p90") + "  p99 " +
                  cell(s.latency, "p99") + "  max " + cell(s.latency, "max") +
                  "  (completed sessions: first turn due to last token)");
    out.push_back("");
    // An agent's steps also say what each generated and how many were tool calls.
    const bool agent = s.tool_calls > 0;
    out.push_back("by turn        " + pad("done", 6) + pad("failed", 8) + pad("TTFT p50", 11) + pad("E2E p50", 11) +
                  pad("prompt", 9) + pad("cached", 9) + pad("TTFT/tok", 11) +
                  (agent ? pad("output", 9) + pad("calls", 7) : std::string()));
    const std::size_t rows = std::min(s.turns.size(), max_turn_rows);
    for (std::size_t k = 0; k < rows; ++k) {
        const turn_stats& t = s.turns[k];
        const auto mean = [&](double v) { return t.with_usage > 0 ? fmt("%.0f", v) : std::string("-"); };
        const auto per_token = latency_ms(t.ttft_per_prompt_token, "p50");
        std::string label = "  " + std::to_string(k + 1) + (k + 1 == static_cast<std::size_t>(tracked_turns) ? "+" : "");
        label.resize(15, ' ');
        out.push_back(label + pad(std::to_string(t.completed), 6) + pad(std::to_string(t.failed), 8) +
                      pad(cell(t.ttft, "p50"), 11) + pad(cell(t.e2e, "p50"), 11) + pad(mean(t.mean_prompt_tokens()), 9) +
                      pad(mean(t.mean_cached_tokens()), 9) + pad(per_token ? fmt("%.4f", *per_token) : "-", 11) +
                      (agent ? pad(t.with_output > 0 ? fmt("%.0f", t.mean_output_tokens()) : "-", 9) +
                                   pad(std::to_string(t.tool_calls), 7)
                             : std::string()));
    }
    if (s.turns.size() > rows)
        out.push_back("  ... " + std::to_string(s.turns.size() - rows) + " more turns in summary.json's sessions.by_turn");
    return out;
}

}  // namespace openloop
