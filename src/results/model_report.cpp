#include "openloop/results/model_report.hpp"

#include "openloop/results/number_text.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>

namespace openloop {

namespace {

constexpr std::array<double, 5> percentiles = {50.0, 90.0, 95.0, 99.0, 99.9};

std::string p_name(double p) {
    char buf[16];
    const auto res = std::to_chars(buf, buf + sizeof buf, p);
    return "p" + std::string(buf, res.ptr);
}

// The statistics summary.json gives each of the run's families, under the same keys.
void put_family(boost::json::object& o, std::string_view fam, const histogram& h) {
    const auto key = [&](std::string_view stat) { return std::string(stat) + "_" + std::string(fam) + "_ms"; };
    for (const std::string_view stat : {"mean", "median", "std"}) o[key(stat)] = latency_ms_json(h, stat);
    for (const double p : percentiles) o[key(p_name(p))] = latency_ms_json(h, p_name(p));
    for (const std::string_view stat : {"min", "max"}) o[key(stat)] = latency_ms_json(h, stat);
}

double per_second(double n, double seconds) { return seconds > 0 ? n / seconds : 0; }

std::optional<double> error_rate(const model_stats& m) {
    const std::uint64_t ended = m.completed + m.failed;
    if (ended == 0) return std::nullopt;
    return static_cast<double>(m.failed) / static_cast<double>(ended);
}

// --goodput set: its objectives judged every request (the run's config records the flag).
bool goodput_set(const run_context& c) {
    const boost::json::value* g = c.config.if_contains("goodput");
    return g != nullptr && !g->is_null() && !(g->is_array() && g->get_array().empty()) &&
           !(g->is_string() && g->get_string().empty());
}

// TTFA differs from TTFT only where the model thought or called tools: shown as the run's table shows it.
bool thought(const run_stats& s) { return s.reasoning.thinking > 0 || s.reasoning.tool_calls > 0; }

}  // namespace

const model_stats* find_model(const run_stats& stats, std::string_view name) {
    for (const model_stats& m : stats.by_model)
        if (m.name == name) return &m;
    return nullptr;
}

boost::json::object by_model_json(const run_result& r) {
    boost::json::object out;
    const run_stats& s = r.stats;
    const bool streamed = r.context.streamed;
    for (const model_stats& m : s.by_model) {
        boost::json::object o;
        // Its share of the measured requests the schedule offered (sent or refused).
        const std::uint64_t offered = s.started + s.refused;
        o["share"] = offered > 0 ? static_cast<double>(m.started + m.refused) / static_cast<double>(offered) : 0.0;
        o["started"] = m.started;
        o["completed"] = m.completed;
        o["failed"] = m.failed;
        o["refused"] = m.refused;
        const auto rate = error_rate(m);
        o["error_rate"] = rate ? boost::json::value(*rate) : boost::json::value(nullptr);
        // The run's error bound (--max-error-rate) applied to the model alone: one failing adapter
        // shows here even when the run's rate stays under it.
        o["too_many_errors"] = rate && *rate > r.context.max_error_rate;
        o["request_throughput"] = per_second(static_cast<double>(m.completed), r.duration_s);
        o["output_throughput"] = per_second(static_cast<double>(m.output_tokens), r.duration_s);
        o["total_input_tokens"] = m.input_tokens;
        o["total_output_tokens"] = m.output_tokens;
        o["goodput_requests"] = m.good;
        o["request_goodput"] = per_second(static_cast<double>(m.good), r.duration_s);
        if (goodput_set(r.context)) {
            const std::uint64_t ended = m.completed + m.failed;
            o["slo_attainment"] = ended > 0 ? boost::json::value(static_cast<double>(m.good) / static_cast<double>(ended))
                                            : boost::json::value(nullptr);
        }
        for (const model_family& f : model_families) {
            const histogram& h = m.*f.member;
            if (!streamed && stream_metric(f.key)) continue;
            if (std::string_view(f.key) == "ttfa" && !thought(s)) continue;  // TTFT's twin unless the run thought
            put_family(o, f.key, h);
        }
        out[m.name] = std::move(o);
    }
    return out;
}

std::vector<std::string> model_lines(const run_result& r) {
    std::vector<std::string> lines;
    const run_stats& s = r.stats;
    if (s.by_model.empty()) return lines;
    std::size_t name_w = 5;
    for (const model_stats& m : s.by_model) name_w = std::max(name_w, m.name.size());
    const auto pad = [](std::string t, std::size_t w) { return t.size() < w ? t + std::string(w - t.size(), ' ') : t; };
    const std::uint64_t offered = s.started + s.refused;
    lines.push_back("by model");
    for (const model_stats& m : s.by_model) {
        const double share = offered > 0 ? static_cast<double>(m.started + m.refused) / static_cast<double>(offered) : 0;
        const auto rate = error_rate(m);
        lines.push_back("  " + pad(m.name, name_w) + "  " + fmt("%.1f", share * 100) + " %  completed " +
                        std::to_string(m.completed) + "  failed " + std::to_string(m.failed) + "  " +
                        fmt("%.2f", per_second(static_cast<double>(m.completed), r.duration_s)) + " req/s  " +
                        fmt("%.1f", per_second(static_cast<double>(m.output_tokens), r.duration_s)) + " tok/s  errors " +
                        (rate ? fmt("%.2f", *rate * 100) + " %" : std::string("-")) +
                        (rate && *rate > r.context.max_error_rate
                             ? " (over the " + fmt("%g", r.context.max_error_rate * 100) + " % bound)"
                             : std::string()));
        for (const model_family& f : model_families) {
            const histogram& h = m.*f.member;
            if ((!r.context.streamed && stream_metric(f.key)) || h.count() == 0) continue;
            if (std::string_view(f.key) == "ttfa" && !thought(s)) continue;
            std::string row = "    " + pad(f.label, name_w) + " ";
            for (const char* stat : {"p50", "p90", "p99"})
                row += " " + std::string(stat) + " " + fmt_ms(latency_ms(h, stat).value_or(0));
            lines.push_back(row + " ms");
        }
    }
    return lines;
}

std::optional<double> model_value(const run_result& r, const model_stats& m, const std::string& metric) {
    if (metric == "error_rate") return error_rate(m);
    if (metric == "request_throughput") return per_second(static_cast<double>(m.completed), r.duration_s);
    if (metric == "output_throughput") return per_second(static_cast<double>(m.output_tokens), r.duration_s);
    if (metric == "goodput") return per_second(static_cast<double>(m.good), r.duration_s);
    const auto cut = metric.rfind('_');
    if (cut == std::string::npos) return std::nullopt;
    std::string family = metric.substr(0, cut);
    if (family == "e2e") family = "e2el";
    for (const model_family& f : model_families)
        if (family == f.key) return latency_ms(m.*f.member, metric.substr(cut + 1));
    return std::nullopt;
}

}  // namespace openloop
