#include "openloop/results/compare_html.hpp"

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

std::string num(double v) { return fmt("%.1f", v); }

// Better in the palette's green, worse in its vermillion, the rest grey.
const char* verdict_colour(const std::string& verdict) {
    if (verdict == "better") return "#009E73";
    if (verdict == "worse") return "#D55E00";
    return "#999999";
}

struct forest_row {
    std::string metric, verdict;
    double change = NAN, low = NAN, high = NAN;  // % of base
};

std::vector<forest_row> rows_of(const json::object& metrics) {
    std::vector<forest_row> rows;
    for (const auto& [name, value] : metrics) {
        if (!value.is_object()) continue;
        const json::object& m = value.get_object();
        forest_row r{std::string(name), json_text(m, "verdict")};
        const double base = json_number(m, "base");
        r.change = 100 * json_number(m, "relative");
        if (const json::value* i = m.if_contains("interval_99"); i && i->is_array() && i->get_array().size() == 2 &&
                                                                  base != 0 && std::isfinite(base)) {
            r.low = 100 * i->get_array()[0].to_number<double>() / std::fabs(base);
            r.high = 100 * i->get_array()[1].to_number<double>() / std::fabs(base);
        }
        rows.push_back(std::move(r));
    }
    return rows;
}

}  // namespace

std::string svg_forest(const json::object& metrics, double min_change) {
    const std::vector<forest_row> rows = rows_of(metrics);
    constexpr double left = 170, right = 660, top = 30, row_h = 18;
    const double bottom = top + row_h * static_cast<double>(std::max<std::size_t>(rows.size(), 1));
    const double height = bottom + 46;
    double lo = -100 * min_change, hi = 100 * min_change;
    for (const auto& r : rows)
        for (const double v : {r.change, r.low, r.high})
            if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
    const std::vector<double> ticks = linear_ticks(lo, hi, 6);
    const double step = ticks.size() > 1 ? ticks[1] - ticks[0] : 1;
    lo = std::min(lo, ticks.empty() ? lo : ticks.front());
    hi = std::max(hi, ticks.empty() ? hi : ticks.back());
    if (hi <= lo) hi = lo + 1;
    const auto px = [&](double v) { return left + (v - lo) / (hi - lo) * (right - left); };

    std::string out = "<figure class=\"chart\" data-chart=\"forest\"><svg viewBox=\"0 0 680 " + num(height) +
                      "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\" fill=\"currentColor\">"
                      "<title>Each metric's change, new against base, with its 99 % interval</title>";
    // The band of changes too small to count, and no change.
    out += "<rect x=\"" + num(px(-100 * min_change)) + "\" y=\"" + num(top) + "\" width=\"" +
           num(px(100 * min_change) - px(-100 * min_change)) + "\" height=\"" + num(bottom - top) +
           "\" fill=\"currentColor\" fill-opacity=\"0.08\"/>";
    for (const double t : ticks) {
        out += "<line x1=\"" + num(px(t)) + "\" y1=\"" + num(top) + "\" x2=\"" + num(px(t)) + "\" y2=\"" + num(bottom) +
               "\" stroke=\"currentColor\" stroke-opacity=\"" + (t == 0 ? "0.6" : "0.12") + "\"/>";
        out += "<text x=\"" + num(px(t)) + "\" y=\"" + num(bottom + 16) + "\" text-anchor=\"middle\" class=\"tick x\">" +
               html_escape(tick_text(t, step)) + "</text>";
    }
    out += "<text x=\"" + num((left + right) / 2) + "\" y=\"" + num(height - 8) +
           "\" text-anchor=\"middle\" class=\"axis-label x\">change, new against base (% of base)</text>";
    out += "<text x=\"0\" y=\"0\" text-anchor=\"middle\" class=\"axis-label y\" transform=\"translate(12," +
           num((top + bottom) / 2) + ") rotate(-90)\">metric</text>";
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const forest_row& r = rows[i];
        const double y = top + row_h * (static_cast<double>(i) + 0.5);
        const std::string colour = verdict_colour(r.verdict);
        const bool drawn = std::isfinite(r.change);
        out += "<g class=\"series\" data-series=\"" + html_escape(r.metric) + "\" data-verdict=\"" +
               html_escape(r.verdict) + "\" data-points=\"" + (drawn ? "1" : "0") + "\" stroke=\"" + colour +
               "\" fill=\"" + colour + "\">";
        out += "<text x=\"" + num(left - 8) + "\" y=\"" + num(y + 4) + "\" text-anchor=\"end\" stroke=\"none\" "
               "fill=\"currentColor\">" + html_escape(r.metric) + "</text>";
        if (std::isfinite(r.low) && std::isfinite(r.high))
            out += "<line x1=\"" + num(px(r.low)) + "\" y1=\"" + num(y) + "\" x2=\"" + num(px(r.high)) + "\" y2=\"" +
                   num(y) + "\" stroke-width=\"2\"/>";
        if (drawn)
            out += "<circle cx=\"" + num(px(r.change)) + "\" cy=\"" + num(y) + "\" r=\"4\"><title>" +
                   html_escape(r.metric + ": " + fmt("%+.1f", r.change) + " % (" + fmt("%+.1f", r.low) + " .. " +
                               fmt("%+.1f", r.high) + "), " + r.verdict) +
                   "</title></circle>";
        out += "</g>";
    }
    out += "</svg><figcaption>Each metric's change relative to base, its 99 % interval as a bar; the shaded band is "
           "±" + fmt("%g", 100 * min_change) + " %, changes too small to count</figcaption></figure>";
    return out;
}

std::string compare_report_html(const json::object& c, const std::vector<std::string>& failed_gates) {
    const std::string base = json_text(c, "base"), now = json_text(c, "new");
    html_page page("openloop compare: " + base + " → " + now, "compare");
    const json::object empty;
    const json::value* m = c.if_contains("metrics");
    const json::object& metrics = m && m->is_object() ? m->get_object() : empty;
    std::vector<std::string> worse, better;
    for (const auto& [name, value] : metrics) {
        if (!value.is_object()) continue;
        const std::string verdict = json_text(value.get_object(), "verdict");
        if (verdict == "worse") worse.emplace_back(name);
        if (verdict == "better") better.emplace_back(name);
    }
    const auto joined = [](const std::vector<std::string>& v) {
        std::string s;
        for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
        return s;
    };
    std::vector<std::string> reasons;
    for (const auto& g : failed_gates) reasons.push_back("gate failed: " + g);
    if (!worse.empty()) reasons.push_back("worse: " + joined(worse));
    if (!better.empty()) reasons.push_back("better: " + joined(better));
    if (json_true(c, "workloads_differ"))
        reasons.push_back("the workloads differ: the changes weigh different loads, not the servers alone");
    const bool bad = !worse.empty() || !failed_gates.empty();
    page.verdict(!bad, !failed_gates.empty() ? "GATE FAILED" : !worse.empty() ? "WORSE" : !better.empty() ? "BETTER" : "WITHIN NOISE",
                 reasons);
    page.headline("Base " + base + " (" + fmt("%.0f", json_number(c, "base_requests")) + " requests), new " + now + " (" +
                  fmt("%.0f", json_number(c, "new_requests")) + " requests): " + std::to_string(worse.size()) + " worse, " +
                  std::to_string(better.size()) + " better. Intervals are " + fmt("%g", 100 * json_number(c, "confidence")) +
                  " % intervals of new - base; a change counts when its interval clears ±" +
                  fmt("%g", 100 * json_number(c, "min_change")) + " % of base.");
    if (const json::value* d = c.if_contains("differences"); d && d->is_array() && !d->get_array().empty()) {
        std::vector<std::vector<std::string>> rows;
        for (const auto& x : d->get_array()) {
            if (!x.is_object()) continue;
            const json::object& o = x.get_object();
            rows.push_back({json_text(o, "aspect"), json_text(o, "first"), json_text(o, "second"),
                            json_true(o, "workload") ? "the workload" : "the server under test"});
        }
        page.section("What differs between the two runs");
        page.table("differences", {"aspect", "base", "new", "is"}, rows);
    }
    page.section("Every change at a glance");
    page.charts({svg_forest(metrics, std::isfinite(json_number(c, "min_change")) ? json_number(c, "min_change") : 0.01)});
    std::vector<std::vector<std::string>> rows;
    for (const forest_row& r : rows_of(metrics)) {
        const json::object& o = metrics.at(r.metric).as_object();
        const std::string unit = json_text(o, "unit");
        rows.push_back({r.metric, figure_text(json_number(o, "base")), figure_text(json_number(o, "new")), figure_text(json_number(o, "change")),
                        std::isfinite(r.change) ? fmt("%+.1f", r.change) : "-",
                        std::isfinite(r.low) ? fmt("%+.1f", r.low) + " .. " + fmt("%+.1f", r.high) : "-", unit,
                        r.verdict});
    }
    page.section("Changes");
    page.table("changes", {"metric", "base", "new", "change", "relative (%)", "99 % interval (% of base)", "unit", "verdict"},
               rows);
    return page.str();
}

}  // namespace openloop
