#include "openloop/results/soak_html.hpp"

#include "openloop/results/html_page.hpp"
#include "openloop/results/soak_report.hpp"
#include "openloop/results/svg_chart.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>

namespace openloop {

namespace {

// Time on the x axis in the unit that reads best for the soak's length.
struct axis_unit {
    double per_hour;
    const char* name;
};
axis_unit unit_for(double hours) {
    if (hours > 2) return {1, "h"};
    if (hours > 2.0 / 60) return {60, "min"};
    return {3600, "s"};
}

std::string signal_chart(const soak_verdict& v, const axis_unit& unit) {
    chart_spec chart;
    chart.id = "soak_" + v.key;
    chart.title = v.label + ": " + v.trend.text;
    chart.x_label = std::string("time (") + unit.name + ")";
    chart.y_label = v.label + (v.unit.empty() ? "" : " (" + v.unit + ")");
    chart.y_from_zero = false;
    chart_series windows{"window", {}, true, true};
    double first = NAN, last = NAN;
    for (const trend_point& p : v.points) {
        if (!std::isfinite(p.value)) continue;
        windows.points.push_back({p.t_hours * unit.per_hour, p.value});
        if (!std::isfinite(first)) first = p.t_hours;
        last = p.t_hours;
    }
    chart.series.push_back(std::move(windows));
    const slope_estimate& s = v.trend.slope;
    if (v.trend.kind != series_kind::insufficient && std::isfinite(first)) {
        chart_series line{"fitted line", {}, true, false, true};
        for (const double t : {first, last}) line.points.push_back({t * unit.per_hour, s.intercept + s.slope * t});
        chart.series.push_back(std::move(line));
    }
    if (v.trend.step.found)
        chart.rules.push_back({true, v.trend.step.t_hours * unit.per_hour, "step"});
    return svg_chart(chart);
}

}  // namespace

void soak_section(html_page& page, const boost::json::object& soak, std::string_view windows_jsonl) {
    std::size_t warmup = 0;
    if (const auto* w = soak.if_contains("warmup_windows"); w && w->is_number()) warmup = w->to_number<std::size_t>();
    const soak_report report = judge_soak(parse_windows_jsonl(windows_jsonl), warmup);
    page.section("Soak: what grows, what drifts");
    page.paragraph(report.headline, "soak_headline");
    if (!report.skipped.empty()) page.paragraph("Skipped: " + report.skipped + ".", "soak_skipped");
    std::vector<std::vector<std::string>> rows;
    for (const soak_verdict& v : report.verdicts) rows.push_back({v.label, to_string(v.trend.kind), v.trend.text});
    page.table("soak_verdicts", {"signal", "verdict", "in words"}, rows);
    double end_hours = 0;
    for (const soak_verdict& v : report.verdicts)
        if (!v.points.empty()) end_hours = std::max(end_hours, v.points.back().t_hours);
    const axis_unit unit = unit_for(end_hours);
    std::vector<std::string> charts;
    // What changed first: those are what a reader opened the report for.
    for (const bool changed : {true, false})
        for (const soak_verdict& v : report.verdicts)
            if ((v.trend.kind != series_kind::no_change && v.trend.kind != series_kind::insufficient) == changed)
                charts.push_back(signal_chart(v, unit));
    page.charts(charts);
}

}  // namespace openloop
