#include "openloop/load/trace_sessions.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/prompt_builder.hpp"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace openloop {

bool has_session_ids(const std::vector<trace_entry>& entries) {
    return std::any_of(entries.begin(), entries.end(), [](const trace_entry& e) { return !e.session.empty(); });
}

trace_sessions group_trace_sessions(const std::vector<trace_entry>& entries, int max_turns, std::string_view name) {
    trace_sessions out;
    std::unordered_map<std::string_view, std::size_t> by_id;
    for (std::size_t i = 0; i < entries.size(); ++i) {
        const std::string& id = entries[i].session;
        std::size_t s = out.sessions.size();
        if (!id.empty()) {
            const auto [it, added] = by_id.try_emplace(id, s);
            s = it->second;
        }
        if (s == out.sessions.size()) out.sessions.emplace_back();
        auto& turns = out.sessions[s].turns;
        if (static_cast<int>(turns.size()) == max_turns)
            throw input_error(std::string(name) + ": session \"" + id + "\" has more than " + std::to_string(max_turns) +
                              " turns, the most a session may have (--trace-max-requests or --trace-to shortens the "
                              "trace)");
        turns.push_back(i);
        out.max_turns = std::max(out.max_turns, static_cast<int>(turns.size()));
    }
    return out;
}

void trace_turn_request(const trace_entry& entry, std::int64_t history_tokens, std::uint64_t seed,
                        std::uint64_t index, const prompt_builder& builder, request_spec& out) {
    if (history_tokens == 0 || !entry.prompt.empty()) {
        trace_request(entry, seed, index, builder, out);
        return;
    }
    constexpr std::uint64_t turn_salt = 0x3c6ef372fe94f82bULL;
    out.prompt.clear();
    out.prompt_ids.clear();
    out.input_tokens = static_cast<int>(std::max<std::int64_t>(1, entry.input_tokens - history_tokens));
    out.max_tokens = std::max(1, entry.output_tokens);
    out.at_ns = entry.at_ns;
    out.prefix_group = -1;
    prompt_layout layout(builder, out.prompt, out.prompt_ids, out.input_tokens);
    layout.rest(mix64(mix64(seed ^ turn_salt) ^ index));
}

}  // namespace openloop
