#include "openloop/results/merge.hpp"

#include "openloop/base/json_text.hpp"
#include "openloop/results/summary_json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <tuple>
#include <utility>

namespace openloop {

namespace {

bool time_key(std::string_view key) {
    for (std::string_view k : {"intended_ns", "released_ns", "sent_ns", "headers_ns", "first_token_ns",
                               "first_answer_ns", "last_token_ns", "end_ns"})
        if (key == k) return true;
    return false;
}

// Each record line gets "origin":NAME as its first field and its times shifted; anything else (a
// blank or torn line) is kept as it was, for the rebuild to count.
void append_tagged(std::string& out, std::string_view text, std::string_view name, std::int64_t shift_ns) {
    std::string tag = "{\"origin\":";
    tag += '"';
    append_json_escaped(tag, name);
    tag += "\",";
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        if (line.size() > 2 && line.front() == '{' && line[1] == '"') {
            out += tag;
            append_shifted(out, line.substr(1), shift_ns);
        } else {
            out += line;
        }
        out += '\n';
    }
}

struct span {
    std::int64_t from = 0, to = 0;
    double rate = 0;
};

// The union of the spans: its total length, and the offered rate over it
// (overlapping spans add their rates; disjoint groups weigh by length).
std::pair<std::int64_t, double> union_of(std::vector<span> spans) {
    std::sort(spans.begin(), spans.end(), [](const span& a, const span& b) { return a.from < b.from; });
    std::int64_t total = 0;
    double offered = 0;  // rate x length, summed over the groups
    for (std::size_t i = 0; i < spans.size();) {
        std::int64_t from = spans[i].from, to = spans[i].to;
        double rate = 0;
        for (; i < spans.size() && spans[i].from <= to; ++i) {
            to = std::max(to, spans[i].to);
            rate += spans[i].rate;
        }
        total += to - from;
        offered += rate * static_cast<double>(to - from);
    }
    return {total, total > 0 ? offered / static_cast<double>(total) : 0};
}

}  // namespace

void append_shifted(std::string& out, std::string_view line, std::int64_t shift_ns) {
    // A key is `"name":` after '{' or ','; inside a string every quote is escaped, so a
    // `,"sent_ns":` there cannot be mistaken for the field.
    std::size_t from = 0;
    for (std::size_t at = line.find("_ns\":"); shift_ns != 0 && at != std::string_view::npos;
         at = line.find("_ns\":", at + 1)) {
        const std::size_t open = line.rfind('"', at);
        if (open == std::string_view::npos || open == 0 || (line[open - 1] != ',' && line[open - 1] != '{')) continue;
        if (!time_key(line.substr(open + 1, at + 3 - open - 1))) continue;
        const std::size_t value = at + 5;
        std::size_t end = value;
        if (end < line.size() && line[end] == '-') ++end;
        while (end < line.size() && line[end] >= '0' && line[end] <= '9') ++end;
        std::int64_t t = 0;
        const auto [ptr, ec] = std::from_chars(line.data() + value, line.data() + end, t);
        if (ec != std::errc() || ptr != line.data() + end) continue;  // null: no time to shift
        out.append(line.substr(from, value - from));
        out += std::to_string(t + shift_ns);
        from = end;
    }
    out.append(line.substr(from));
}

merged_runs merge_runs(const std::vector<merge_part>& parts) {
    merged_runs m;
    std::vector<span> spans;
    for (const merge_part& p : parts) {
        m.parts.push_back(rebuild_stats(p.requests_jsonl));
        const run_stats& s = m.parts.back().stats;
        if (s.completed + s.failed > 0 && s.last_end_ns > s.first_intended_ns)
            spans.push_back({s.first_intended_ns + p.clock_shift_ns, s.last_end_ns + p.clock_shift_ns, p.offered_rate});
        append_tagged(m.requests_jsonl, p.requests_jsonl, p.name, p.clock_shift_ns);
        // A session's figures are differences of its own times: no shift needed.
        rebuild_sessions(p.sessions_jsonl, m.parts.back().stats.sessions);
        m.sessions_jsonl += p.sessions_jsonl;
        if (!m.sessions_jsonl.empty() && m.sessions_jsonl.back() != '\n') m.sessions_jsonl += '\n';
    }
    m.rebuilt = rebuild_stats(m.requests_jsonl, nullptr, true);
    rebuild_sessions(m.sessions_jsonl, m.rebuilt.stats.sessions);
    std::tie(m.window_ns, m.offered_rate) = union_of(std::move(spans));
    // run_stats measures its window from the first intended send to the last
    // end; the merged one is shorter by the gaps when no part was running.
    run_stats& s = m.rebuilt.stats;
    if (m.window_ns > 0) s.first_intended_ns = s.last_end_ns - m.window_ns;
    return m;
}

std::vector<part_mismatch> merge_mismatches(const std::vector<merge_input>& parts) {
    std::vector<part_mismatch> out;
    for (std::size_t i = 1; i < parts.size(); ++i) {
        if (parts[0].context.config.empty() || parts[i].context.config.empty()) continue;
        auto differences = run_differences(parts[0].context, parts[i].context);
        if (!differences.empty()) out.push_back({parts[i].name, std::move(differences)});
    }
    return out;
}

std::vector<std::string> unchecked_parts(const std::vector<merge_input>& parts) {
    std::vector<std::string> out;
    for (const merge_input& p : parts)
        if (p.context.config.empty()) out.push_back(p.name);
    return out;
}

std::string mismatches_text(const std::vector<part_mismatch>& mismatches) {
    std::string text;
    for (const part_mismatch& m : mismatches) {
        if (!text.empty()) text += "; ";
        text += m.part + ": " + differences_text(m.differences);
    }
    return text;
}

merged_result merge_results(const std::vector<merge_input>& inputs, bool allow_mismatch) {
    namespace json = boost::json;
    const std::vector<part_mismatch> mismatches = merge_mismatches(inputs);
    std::vector<merge_part> parts;
    for (const merge_input& in : inputs)
        parts.push_back({in.name, in.requests_jsonl, in.context.request_rate, 0, in.sessions_jsonl});
    // On the wall clock only when every part says where its schedule started on it.
    const bool wall =
        std::all_of(inputs.begin(), inputs.end(), [](const merge_input& in) { return in.context.clock.started(); });
    std::int64_t first_start = 0, last_start = 0;
    double latest = 0;
    for (std::size_t i = 0; i < parts.size() && wall; ++i) {
        const run_clock& c = inputs[i].context.clock;
        parts[i].clock_shift_ns = c.wall_minus_steady_ns;
        first_start = i == 0 ? c.origin_wall_ns() : std::min(first_start, c.origin_wall_ns());
        last_start = i == 0 ? c.origin_wall_ns() : std::max(last_start, c.origin_wall_ns());
        latest = std::max(latest, c.late_ms);
    }
    merged_result out;
    run_context& ctx = out.context;
    ctx = inputs.front().context;
    if (!ctx.shard.empty()) ctx.arrival += ", " + std::to_string(parts.size()) + " shards merged";
    ctx.shard.clear();
    if (!mismatches.empty()) {
        // The table and run.json name every part's server and schedule, not the first's alone.
        const auto every = [&](auto field) {
            std::vector<std::string> seen;
            std::string text;
            for (const merge_input& in : inputs) {
                std::string value = field(in.context);
                if (std::find(seen.begin(), seen.end(), value) != seen.end()) continue;
                text += (seen.empty() ? "" : " | ") + value;
                seen.push_back(std::move(value));
            }
            return text;
        };
        ctx.target = every([](const run_context& c) { return c.target; });
        ctx.arrival = every([](const run_context& c) { return c.arrival; });
        ctx.config["model"] = every([](const run_context& c) {
            const json::value* m = c.config.if_contains("model");
            return m && m->is_string() ? std::string(m->get_string()) : std::string("(not set)");
        });
    }
    if (wall) {
        ctx.clock.wall_minus_steady_ns = 0;  // the merged log's times are the wall clock's
        ctx.clock.origin_steady_ns = first_start;
        ctx.clock.late_ms = latest;
    }
    merged_runs merged = merge_runs(parts);
    if (merged.offered_rate > 0) ctx.request_rate = merged.offered_rate;
    out.result = make_run_result(merged.rebuilt.stats, ctx);

    json::array rows;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const run_stats& s = merged.parts[i].stats;
        const merge_input& in = inputs[i];
        json::array reasons;
        for (const std::string& r : in.reasons) {
            reasons.emplace_back(r);
            if (in.valid == false) out.result.validity.reasons.push_back("part " + in.name + ": " + r);
        }
        if (in.valid == false) out.result.validity.valid = false;
        json::object row{{"dir", in.name}, {"completed", s.completed}, {"failed", s.failed}, {"duration", s.duration_s()}};
        row["shard"] = in.context.shard.empty() ? json::value(nullptr) : json::value(in.context.shard);
        row["start"] = run_clock_json(in.context.clock);
        row["valid"] = in.valid ? json::value(*in.valid) : json::value(nullptr);
        row["reasons"] = std::move(reasons);
        rows.push_back(std::move(row));
    }
    json::array differences;
    for (const part_mismatch& m : mismatches)
        differences.push_back(json::object{{"part", m.part}, {"differences", differences_json(m.differences)}});
    json::array unchecked;
    for (const std::string& name : unchecked_parts(inputs)) unchecked.emplace_back(name);
    out.summary = summary_json(out.result);
    out.summary["merged"] =
        json::object{{"parts", std::move(rows)},
                     {"window", static_cast<double>(merged.window_ns) / 1e9},
                     {"clock", wall ? "wall" : "monotonic: a part has no start clock"},
                     {"start_spread_ms",
                      wall ? json::value(static_cast<double>(last_start - first_start) / 1e6) : json::value(nullptr)},
                     {"lines", merged.rebuilt.lines},
                     {"bad_lines", merged.rebuilt.bad_lines},
                     {"itl", "not merged: no per-chunk times on disk"},
                     {"mismatches", std::move(differences)},
                     {"allow_mismatch", allow_mismatch},
                     {"unchecked", std::move(unchecked)}};
    out.requests_jsonl = std::move(merged.requests_jsonl);
    out.sessions_jsonl = std::move(merged.sessions_jsonl);
    return out;
}

}  // namespace openloop
