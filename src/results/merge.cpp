#include "openloop/results/merge.hpp"

#include "openloop/measure/json_text.hpp"

#include <algorithm>
#include <tuple>
#include <utility>

namespace openloop {

namespace {

// Each record line gets "origin":NAME as its first field; anything else (a
// blank or torn line) is kept as it was, for the rebuild to count.
void append_tagged(std::string& out, std::string_view text, std::string_view name) {
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
            out += line.substr(1);
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

merged_runs merge_runs(const std::vector<merge_part>& parts) {
    merged_runs m;
    std::vector<span> spans;
    for (const merge_part& p : parts) {
        m.parts.push_back(rebuild_stats(p.requests_jsonl));
        const run_stats& s = m.parts.back().stats;
        if (s.completed + s.failed > 0 && s.last_end_ns > s.first_intended_ns)
            spans.push_back({s.first_intended_ns, s.last_end_ns, p.offered_rate});
        append_tagged(m.requests_jsonl, p.requests_jsonl, p.name);
    }
    m.rebuilt = rebuild_stats(m.requests_jsonl);
    std::tie(m.window_ns, m.offered_rate) = union_of(std::move(spans));
    // run_stats measures its window from the first intended send to the last
    // end; the merged one is shorter by the gaps when no part was running.
    run_stats& s = m.rebuilt.stats;
    if (m.window_ns > 0) s.first_intended_ns = s.last_end_ns - m.window_ns;
    return m;
}

}  // namespace openloop
