#include "openloop/results/soak_report.hpp"

#include "openloop/base/json_text.hpp"
#include "openloop/results/jsonl_lines.hpp"

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <unordered_map>

namespace openloop {

namespace json = boost::json;

namespace {

// What each known figure is and how much change counts (trend_options'
// min_change and min_change_fraction over the judged span).
struct soak_figure {
    const char* key;
    const char* label;
    const char* unit;
    double min_change;
    double min_fraction;
    bool worse_up;
    bool check_step;
};

constexpr soak_figure figures[] = {
    {"server_rss_mib", "server RSS (/proc)", "MiB", 16, 0.02, true, false},
    {"signals.server_rss_mib", "server RSS (/metrics)", "MiB", 16, 0.02, true, false},
    {"signals.gpu_memory_used_mib", "GPU memory", "MiB", 64, 0.02, true, false},
    {"signals.kv_usage", "KV-cache usage", "", 0.05, 0, true, true},
    {"generator_rss_mib", "generator RSS", "MiB", 8, 0.02, true, false},
    {"ttft_p99_ms", "TTFT p99", "ms", 0, 0.10, true, true},
    {"ttfa_p99_ms", "TTFA p99", "ms", 0, 0.10, true, true},  // a thinking model's windows only
    {"itl_p99_ms", "ITL p99", "ms", 0, 0.10, true, true},
    {"e2e_p50_ms", "E2E p50", "ms", 0, 0.10, true, true},
    {"e2e_p99_ms", "E2E p99", "ms", 0, 0.10, true, true},
    {"achieved_rate", "achieved throughput", "req/s", 0, 0.05, false, true},
    {"error_rate", "error rate", "", 0.01, 0, true, true},
};

// One window's figures as they are read: a damaged one is counted, not taken.
struct window_reader {
    soak_windows& out;
    soak_window_row& row;
    std::string window;  // "window 3", for the first skipped value's name

    // where: the figure as the line spells it (ttft_ms.p99), for the message.
    void put(std::string key, const json::value* v, std::string_view where) {
        if (v == nullptr || !v->is_number()) return;
        const double x = v->to_number<double>();
        if (std::fabs(x) <= max_window_value) {
            row.values.emplace_back(std::move(key), x);
            return;
        }
        if (out.skipped_values++ == 0) {
            char value[32];
            std::snprintf(value, sizeof value, "%g", x);
            out.first_skipped = window + "'s " + std::string(where) + ", " + value;
        }
    }

    // A window's percentiles; "inf" (past a request that never answered) reads as infinity,
    // an honest figure, not damage.
    void put_percentiles(const json::object& o, const char* field, const char* prefix) {
        const json::value* p = o.if_contains(field);
        if (p == nullptr || !p->is_object()) return;
        for (const char* q : {"p50", "p90", "p99", "max"}) {
            std::string key = std::string(prefix) + "_" + q + "_ms";
            const json::value* v = p->get_object().if_contains(q);
            if (v != nullptr && v->is_string()) {
                if (const std::optional<double> ms = ms_from_json(*v)) row.values.emplace_back(std::move(key), *ms);
                continue;
            }
            put(std::move(key), v, std::string(field) + "." + q);
        }
    }
};

const soak_figure* known(const std::string& key) {
    for (const soak_figure& f : figures)
        if (key == f.key) return &f;
    return nullptr;
}

}  // namespace

soak_windows parse_windows_jsonl(std::string_view text) {
    soak_windows out;
    const jsonl_tally tally = read_jsonl(text, [&](const json::object& o) {
        const json::value* t = o.if_contains("t_end_s");
        if (t == nullptr || !t->is_number()) return false;
        soak_window_row row;
        row.t_end_s = t->to_number<double>();
        if (!(row.t_end_s >= 0 && row.t_end_s <= max_window_value)) return false;
        if (const json::value* p = o.if_contains("partial"); p && p->is_bool()) row.partial = p->get_bool();
        const json::value* index = o.if_contains("window");
        window_reader w{out, row,
                        index && index->is_number() ? "window " + json::serialize(*index)
                                                    : "the window ending at " + json::serialize(*t) + " s"};
        for (const char* k : {"offered_rate", "achieved_rate", "error_rate", "in_flight", "output_tok_s"})
            w.put(k, o.if_contains(k), k);
        w.put_percentiles(o, "ttft_ms", "ttft");
        w.put_percentiles(o, "ttfa_ms", "ttfa");
        w.put_percentiles(o, "itl_ms", "itl");
        w.put_percentiles(o, "tpot_ms", "tpot");
        w.put_percentiles(o, "e2e_ms", "e2e");
        for (const auto& [field, prefix] : {std::pair{"generator", "generator_"}, std::pair{"server", "server_"}}) {
            const json::value* g = o.if_contains(field);
            if (g == nullptr || !g->is_object()) continue;
            for (const auto& [k, value] : g->get_object())
                w.put(std::string(prefix) + std::string(k), &value, std::string(field) + "." + std::string(k));
        }
        if (const json::value* s = o.if_contains("signals"); s != nullptr && s->is_object()) {
            for (const auto& [k, value] : s->get_object())
                w.put("signals." + std::string(k), &value, "signals." + std::string(k));
        }
        out.rows.push_back(std::move(row));
        return true;
    });
    out.bad_lines = tally.bad_lines;
    out.first_bad_line = tally.first_bad_line;
    return out;
}

soak_report judge_soak(const soak_windows& w, std::size_t warmup) {
    soak_report r;
    r.windows = w.rows.size();
    if (w.skipped_values > 0)
        r.skipped = std::to_string(w.skipped_values) + " damaged value" + (w.skipped_values == 1 ? "" : "s") +
                    " left out of the trends, the first " + w.first_skipped;
    r.warmup_windows = std::min(warmup, w.rows.size());
    const auto first = w.rows.begin() + static_cast<std::ptrdiff_t>(r.warmup_windows);
    // A last window cut short by the run's end holds its drain, not its load.
    auto end = w.rows.end();
    if (end != first && (end - 1)->partial) {
        --end;
        r.partial_left_out = true;
    }
    if (first != end) r.hours = ((end - 1)->t_end_s - first->t_end_s) / 3600;
    if (!std::isfinite(r.hours)) r.hours = 0;

    // One column per figure, in one pass over the rows: the known figures in
    // their order, then every other scraped signal as first seen.
    std::vector<std::string> keys;
    std::unordered_map<std::string, std::size_t> column;
    for (const soak_figure& f : figures) {
        column.emplace(f.key, keys.size());
        keys.emplace_back(f.key);
    }
    std::vector<std::vector<double>> values(keys.size());
    const std::size_t n = static_cast<std::size_t>(end - first);
    for (auto it = first; it != end; ++it) {
        const std::size_t row = static_cast<std::size_t>(it - first);
        for (const auto& [k, v] : it->values) {
            auto [at, added] = column.emplace(k, keys.size());
            if (added) {
                // Beyond the known figures, only scraped signals (with a name) are judged.
                if (k.rfind("signals.", 0) != 0 || k.size() == 8) {
                    at->second = SIZE_MAX;
                    continue;
                }
                keys.push_back(k);
                values.emplace_back();
            }
            if (at->second == SIZE_MAX) continue;
            std::vector<double>& col = values[at->second];
            if (col.empty()) col.assign(n, std::nan(""));
            col[row] = v;
        }
    }

    for (std::size_t c = 0; c < keys.size(); ++c) {
        if (values[c].empty()) continue;
        const std::string& key = keys[c];
        std::vector<trend_point> points;
        points.reserve(n);
        for (std::size_t row = 0; row < n; ++row)
            points.push_back({(first + static_cast<std::ptrdiff_t>(row))->t_end_s / 3600, values[c][row]});
        const soak_figure* f = known(key);
        soak_verdict v;
        v.key = key;
        v.label = f ? f->label : key.substr(8);
        v.unit = f ? f->unit : "";
        v.worse_up = f ? f->worse_up : true;
        trend_options o;
        if (f) {
            o.min_change = f->min_change;
            o.min_change_fraction = f->min_fraction;
            o.check_step = f->check_step;
        }
        v.trend = judge_series(points, v.unit, o);
        v.infinite = static_cast<std::size_t>(
            std::count_if(points.begin(), points.end(), [](const trend_point& p) { return std::isinf(p.value); }));
        if (v.infinite > 0)
            v.trend.text = "infinite in " + std::to_string(v.infinite) + " of " + std::to_string(n) +
                           " windows (requests that never answered); the rest " + v.trend.text;
        v.points = std::move(points);
        r.verdicts.push_back(std::move(v));
    }

    std::string changes;
    std::size_t changed = 0, judged = 0;
    for (const soak_verdict& v : r.verdicts) {
        if (v.trend.kind == series_kind::insufficient && v.infinite == 0) continue;
        ++judged;
        if (v.trend.kind == series_kind::no_change && v.infinite == 0) continue;
        ++changed;
        changes += (changes.empty() ? "" : "; ") + v.label + " " + v.trend.text;
    }
    r.changed = changed > 0;
    char head[160];
    if (judged == 0) {
        std::snprintf(head, sizeof head, "soak: too few windows to judge (%zu after %zu warm-up)", n,
                      r.warmup_windows);
        r.headline = head;
    } else if (changed == 0) {
        std::snprintf(head, sizeof head, "soak: nothing grows or drifts: %zu signals flat over %s h (%zu windows after %zu warm-up)",
                      judged, sig3(r.hours).c_str(), n, r.warmup_windows);
        r.headline = head;
    } else {
        std::snprintf(head, sizeof head, "soak: %zu of %zu signals change over %s h: ", changed, judged, sig3(r.hours).c_str());
        r.headline = head + changes;
    }
    return r;
}

json::object soak_json(const soak_report& r) {
    json::array verdicts;
    for (const soak_verdict& v : r.verdicts) {
        const slope_estimate& s = v.trend.slope;
        json::object o{{"signal", v.key},   {"label", v.label},          {"unit", v.unit},
                       {"verdict", to_string(v.trend.kind)}, {"text", v.trend.text}, {"n", s.n}};
        if (v.infinite > 0) o["infinite_windows"] = v.infinite;
        if (v.trend.kind != series_kind::insufficient) {
            o["slope_per_h"] = s.slope;
            o["ci_low"] = s.lower;
            o["ci_high"] = s.upper;
            o["intercept"] = s.intercept;
        }
        if (v.trend.step.found) {
            o["change_point"] = json::object{{"t_h", v.trend.step.t_hours},
                                             {"before", v.trend.step.before},
                                             {"after", v.trend.step.after},
                                             {"p", v.trend.step.p}};
        } else {
            o["change_point"] = nullptr;
        }
        verdicts.push_back(std::move(o));
    }
    return json::object{{"headline", r.headline},
                        {"changed", r.changed},
                        {"windows", r.windows},
                        {"warmup_windows", r.warmup_windows},
                        {"hours", r.hours},
                        {"partial_window_left_out", r.partial_left_out},
                        {"skipped", r.skipped.empty() ? json::value(nullptr) : json::value(r.skipped)},
                        {"verdicts", std::move(verdicts)}};
}

std::string format_soak(const soak_report& r) {
    std::string out = r.headline + "\n";
    if (!r.skipped.empty()) out += "  (" + r.skipped + ")\n";
    std::size_t width = 6;
    for (const soak_verdict& v : r.verdicts) width = std::max(width, v.label.size());
    for (const soak_verdict& v : r.verdicts) {
        out += "  " + v.label + std::string(width - v.label.size() + 2, ' ') + v.trend.text + "\n";
    }
    return out;
}

}  // namespace openloop
