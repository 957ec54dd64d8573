#include "openloop/results/sweep_html.hpp"

#include "openloop/results/html_page.hpp"
#include "openloop/results/json_read.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/svg_chart.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

namespace openloop {

namespace json = boost::json;

namespace {

// The stage's x: its offered rate, or its concurrency on a closed-loop ladder.
double stage_x(const json::object& stage, bool closed) {
    return json_number(stage, closed ? "concurrency" : "offered_rate");
}

struct sweep_view {
    std::vector<json::object> stages;
    bool closed = false;
    std::vector<chart_rule> knees;  // vertical, on every chart
    bool log_x = false;
};

sweep_view view_of(const json::object& sweep) {
    sweep_view v;
    if (const json::value* s = sweep.if_contains("stages"); s && s->is_array())
        for (const auto& stage : s->get_array())
            if (stage.is_object()) v.stages.push_back(stage.get_object());
    v.closed = !v.stages.empty() && json_number(v.stages.front(), "concurrency") > 0;
    const json::object& knees = json_object(sweep, "knees");
    for (const auto& [key, label] : {std::pair{"slo", "SLO knee"}, std::pair{"saturation", "saturation knee"}}) {
        const json::object& k = json_object(knees, key);
        if (json_true(k, "found"))
            v.knees.push_back({true, json_number(k, "rate"), std::string(label) + " " + figure_text(json_number(k, "rate")) + (v.closed ? "" : " req/s")});
    }
    double lo = INFINITY, hi = 0;
    for (const auto& stage : v.stages) {
        const double x = stage_x(stage, v.closed);
        if (x > 0) lo = std::min(lo, x), hi = std::max(hi, x);
    }
    v.log_x = hi >= 8 * lo;  // a geometric ladder reads on a log axis
    return v;
}

std::string x_label(const sweep_view& v) {
    const std::string scale = v.log_x ? ", log scale" : "";
    return v.closed ? "concurrency (requests" + scale + ")" : "offered rate (req/s" + scale + ")";
}

// A metric's percentile across the stages, with its confidence bar where the stage has one.
chart_series percentile_series(const sweep_view& v, const std::string& metric, const std::string& label,
                               const std::string& stat) {
    chart_series s{label + " " + stat, {}, true, true};
    for (const auto& stage : v.stages) {
        const json::object& m = json_object(stage, metric + "_ms");
        chart_point p{stage_x(stage, v.closed), json_number(m, stat)};
        if (const json::value* ci = m.if_contains(stat + "_ci"); ci && ci->is_array() && ci->get_array().size() == 2) {
            p.y_low = ci->get_array()[0].to_number<double>();
            p.y_high = ci->get_array()[1].to_number<double>();
        }
        s.points.push_back(p);
    }
    return s;
}

chart_series stage_series(const sweep_view& v, const std::string& name, std::string_view key) {
    chart_series s{name, {}, true, true};
    for (const auto& stage : v.stages) s.points.push_back({stage_x(stage, v.closed), json_number(stage, key)});
    return s;
}

std::vector<std::string> curves(const sweep_view& v, const json::object& sweep) {
    std::vector<std::string> out;
    chart_spec throughput{"throughput", "Achieved against offered", x_label(v), "requests per second", v.log_x};
    throughput.series.push_back(stage_series(v, "achieved", "achieved_rate"));
    if (!v.closed) {
        chart_series follow{"achieved = offered", {}, true, false, true};
        for (const auto& stage : v.stages) follow.points.push_back({stage_x(stage, false), stage_x(stage, false)});
        throughput.series.push_back(std::move(follow));
    }
    throughput.rules = v.knees;
    out.push_back(svg_chart(throughput));

    // A chart per latency the SLOs name, TTFT and E2E always; each SLO's limit marked.
    std::vector<std::pair<std::string, std::string>> metrics{{"ttft", "TTFT"}, {"e2e", "E2E"}};
    std::vector<json::object> slos;
    if (const json::value* s = sweep.if_contains("slos"); s && s->is_array())
        for (const auto& slo : s->get_array())
            if (slo.is_object()) slos.push_back(slo.get_object());
    for (const auto& slo : slos) {
        std::string metric = json_text(slo, "metric");
        if (metric == "e2el") metric = "e2e";
        if (metric == "error_rate" || metric.empty()) continue;
        if (std::none_of(metrics.begin(), metrics.end(), [&](const auto& m) { return m.first == metric; }))
            metrics.emplace_back(metric, metric == "tpot" ? "TPOT" : metric == "itl" ? "ITL" : metric);
    }
    for (const auto& [metric, label] : metrics) {
        // p50 and p99, and the statistic each SLO on the metric names: a p95 limit is read against the p95.
        std::vector<std::string> stats{"p50", "p99"};
        std::vector<chart_rule> limits;
        for (const auto& slo : slos) {
            std::string m = json_text(slo, "metric");
            if (m == "e2el") m = "e2e";
            if (m != metric) continue;
            limits.push_back({false, json_number(slo, "limit"), "SLO " + json_text(slo, "text")});
            const std::string stat = json_text(slo, "stat");
            if (!stat.empty() && std::find(stats.begin(), stats.end(), stat) == stats.end())
                stats.insert(stats.end() - 1, stat);
        }
        std::string named;
        for (std::size_t i = 0; i < stats.size(); ++i)
            named += (i == 0 ? "" : i + 1 == stats.size() ? " and " : ", ") + stats[i];
        chart_spec c{"latency_" + metric, label + " by stage: " + named + ", with 95 % confidence intervals where a stage has one",
                     x_label(v), label + " (ms)", v.log_x};
        for (const std::string& stat : stats) c.series.push_back(percentile_series(v, metric, label, stat));
        c.rules = v.knees;
        c.rules.insert(c.rules.end(), limits.begin(), limits.end());
        out.push_back(svg_chart(c));
    }
    chart_spec in_flight{"in_flight", "Requests in flight, mean over the stage", x_label(v), "requests", v.log_x};
    in_flight.series.push_back(stage_series(v, "in flight", "mean_inflight"));
    in_flight.rules = v.knees;
    out.push_back(svg_chart(in_flight));
    chart_spec errors{"error_rate", "Error rate by stage", x_label(v), "fraction of requests", v.log_x};
    errors.series.push_back(stage_series(v, "error rate", "error_rate"));
    errors.rules = v.knees;
    out.push_back(svg_chart(errors));
    return out;
}

// A stage is numbered in the order it ran, as its directory, the progress
// lines and the knees' explanations name it (a bisection runs stages out of
// rate order); a sweep.json older than that number has only its rate order.
std::vector<std::string> stage_cells(const json::object& stage, bool closed, const std::string& verdict) {
    return {figure_text(json_number(stage, stage.contains("run") ? "run" : "index")),
            figure_text(stage_x(stage, closed)),
            figure_text(json_number(stage, "achieved_rate")),
            figure_text(json_number(stage, "completed")),
            fmt("%.2f", 100 * json_number(stage, "error_rate")),
            ms_text(json_number(json_object(stage, "ttft_ms"), "p50")),
            ms_text(json_number(json_object(stage, "ttft_ms"), "p99")),
            ms_text(json_number(json_object(stage, "e2e_ms"), "p99")),
            figure_text(json_number(stage, "mean_inflight")),
            verdict};
}

// The banner's word: the knee a capacity is planned by, or that none was reached.
std::string knee_word(const json::object& knees, bool closed) {
    const std::string unit = closed ? "" : " req/s";
    for (const auto& [key, word] : {std::pair{"slo", "SLO KNEE AT "}, std::pair{"saturation", "SATURATES AT "}}) {
        const json::object& k = json_object(knees, key);
        if (json_true(k, "found")) return word + figure_text(json_number(k, "rate")) + unit;
    }
    return "NO KNEE IN THE RATES SWEPT";
}

}  // namespace

std::string sweep_report_html(const std::string& title, const json::object& sweep) {
    const sweep_view v = view_of(sweep);
    html_page page("openloop sweep: " + title, "sweep");
    const bool cut = json_true(sweep, "interrupted");
    std::vector<std::string> reasons;
    const json::object& knees = json_object(sweep, "knees");
    for (const char* key : {"slo", "saturation", "latency"}) {
        const std::string why = json_text(json_object(knees, key), "explanation");
        if (!why.empty()) reasons.push_back(why);
        const std::string warning = json_text(json_object(knees, key), "warning");
        if (!warning.empty()) reasons.push_back(warning);
    }
    if (cut) reasons.insert(reasons.begin(), "interrupted: " + json_text(sweep, "interruption"));
    page.verdict(!cut, cut ? "INTERRUPTED" : knee_word(knees, v.closed), reasons);
    page.headline(json_text(json_object(sweep, "capacity"), "text"));

    page.section("Curves");
    page.charts(curves(v, sweep));

    page.section("Stages");
    std::vector<std::vector<std::string>> rows;
    for (const auto& stage : v.stages) rows.push_back(stage_cells(stage, v.closed, json_text(stage, "verdict")));
    if (const json::value* c = sweep.if_contains("cut_stage"); c && c->is_object())
        rows.push_back(stage_cells(c->get_object(), v.closed, "cut (not judged)"));
    page.table("stages",
               {"stage", v.closed ? "concurrency" : "offered (req/s)", "achieved (req/s)", "completed", "errors (%)",
                "TTFT p50 (ms)", "TTFT p99 (ms)", "E2E p99 (ms)", "in flight", "verdict"},
               rows);

    page.how_it_was_run(sweep, {"target", "mode", "min_samples", "precision"});
    return page.str();
}

}  // namespace openloop
