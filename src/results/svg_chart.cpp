#include "openloop/results/svg_chart.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>

namespace openloop {

namespace {

// Okabe & Ito's eight, yellow last: it is faint on white.
constexpr const char* palette[] = {"#0072B2", "#E69F00", "#009E73", "#D55E00",
                                   "#CC79A7", "#56B4E9", "#999999", "#F0E442"};
constexpr std::size_t palette_size = sizeof palette / sizeof palette[0];

// The drawing's geometry, in viewBox units.
constexpr double width = 680, height = 320;
constexpr double left = 72, right = 660, top = 44, bottom = 268;
// A marked level's or time's label (11 px): at most this wide per character.
constexpr double rule_label_char = 6.5;

std::string num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f", v);
    return buf;
}

// The value as a reader wants it on hover: four significant digits.
std::string value_text(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
}

double nice_step(double span, int target) {
    const double raw = span / std::max(1, target);
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0})
        if (raw <= m * magnitude * 1.0000001) return m * magnitude;
    return 10 * magnitude;
}

struct axis {
    bool log = false;
    double lo = 0, hi = 1;
    std::vector<double> ticks;
    double step = 1;  // for tick labels on a linear axis

    bool takes(double v) const { return std::isfinite(v) && (!log || v > 0); }
    // A point of 0 on a log axis lies below every decade: it is drawn at the
    // low edge (its hover says 0), so a CDF whose first share is 0 ms (chunks
    // read at once) rises there instead of starting in mid-air.
    bool draws(double v) const { return takes(v) || (log && v == 0); }
    // 0 at lo, 1 at hi.
    double at(double v) const {
        if (log && v <= 0) return 0;
        if (log) return (std::log10(v) - std::log10(lo)) / (std::log10(hi) - std::log10(lo));
        return (v - lo) / (hi - lo);
    }
};

axis make_axis(double lo, double hi, bool log, bool from_zero) {
    axis a;
    a.log = log;
    if (log) {
        a.lo = std::pow(10.0, std::floor(std::log10(lo)));
        a.hi = std::pow(10.0, std::ceil(std::log10(hi)));
        if (a.hi <= a.lo) a.hi = a.lo * 10;
        a.ticks = log_ticks(a.lo, a.hi);
        return a;
    }
    if (from_zero) lo = std::min(lo, 0.0);
    if (hi <= lo) {
        const double pad = lo == 0 ? 1 : std::fabs(lo) * 0.1;
        lo -= pad;
        hi += pad;
        if (from_zero && lo < 0 && hi > 0 && lo + pad >= 0) lo = 0;
    }
    a.step = nice_step(hi - lo, 5);
    a.lo = std::floor(lo / a.step + 1e-9) * a.step;
    a.hi = std::ceil(hi / a.step - 1e-9) * a.step;
    if (a.hi <= a.lo) a.hi = a.lo + a.step;
    a.ticks = linear_ticks(a.lo, a.hi, 5);
    return a;
}

// The range of the values an axis must show; false when there is none.
bool extent(const std::vector<double>& values, bool log, double& lo, double& hi) {
    lo = std::numeric_limits<double>::infinity();
    hi = -lo;
    for (const double v : values) {
        if (!std::isfinite(v) || (log && v <= 0)) continue;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    return lo <= hi;
}

void text(std::string& out, double x, double y, const std::string& anchor, const std::string& cls, const std::string& body,
          const std::string& extra = "") {
    out += "<text x=\"" + num(x) + "\" y=\"" + num(y) + "\" text-anchor=\"" + anchor + "\" class=\"" + cls + "\"" +
           extra + ">" + html_escape(body) + "</text>";
}

}  // namespace

std::vector<double> linear_ticks(double lo, double hi, int target) {
    std::vector<double> ticks;
    if (!std::isfinite(lo) || !std::isfinite(hi) || hi < lo) return ticks;
    if (hi == lo) return {lo};
    const double step = nice_step(hi - lo, target);
    const double first = std::ceil(lo / step - 1e-9), last = std::floor(hi / step + 1e-9);
    // Counted in integers: where the span is below a double's resolution at
    // the values' size (1e17 to 1e17 + 64), k + 1 == k and a stepping loop
    // never ends. Such an axis gets its two ends.
    constexpr double exact = 9007199254740992.0;  // 2^53
    if (!(last - first <= 4.0 * target + 4) || !(std::fabs(first) < exact) || !(std::fabs(last) < exact)) return {lo, hi};
    for (double k = first; k <= last; k += 1) {
        const double v = k * step;
        ticks.push_back(std::fabs(v) < step * 1e-9 ? 0.0 : v);
    }
    return ticks;
}

std::vector<double> log_ticks(double lo, double hi) {
    std::vector<double> ticks;
    if (!(lo > 0) || !std::isfinite(hi) || hi < lo) return ticks;
    const int first = static_cast<int>(std::floor(std::log10(lo)));
    const int last = static_cast<int>(std::ceil(std::log10(hi)));
    const bool wide = last - first > 3;
    for (int e = first; e <= last; ++e) {
        for (const double m : {1.0, 2.0, 5.0}) {
            if (wide && m != 1.0) continue;
            const double v = m * std::pow(10.0, e);
            if (v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9)) ticks.push_back(v);
        }
    }
    return ticks;
}

std::string tick_text(double v, double step) {
    // The fewest decimals that write the step exactly: 0.05 two, 2.5 one, 500 none.
    const auto decimals = [](double s) {
        for (int d = 0; d < 6; ++d) {
            const double scaled = s * std::pow(10.0, d);
            if (std::fabs(scaled - std::round(scaled)) < 1e-6 * std::max(1.0, scaled)) return d;
        }
        return 6;
    };
    step = std::fabs(step);
    if (!(step > 0)) step = std::fabs(v) > 0 ? std::fabs(v) : 1;
    char buf[48];
    if (std::fabs(v) >= 1e6 && step >= 1e5) {
        std::snprintf(buf, sizeof buf, "%.*fM", decimals(step / 1e6), v / 1e6);
    } else if (std::fabs(v) >= 1e4 && step >= 1e3) {
        std::snprintf(buf, sizeof buf, "%.*fk", decimals(step / 1e3), v / 1e3);
    } else {
        std::snprintf(buf, sizeof buf, "%.*f", decimals(step), v);
    }
    return buf;
}

std::string html_escape(const std::string& text) {
    std::string out;
    out.reserve(text.size());
    for (const char c : text) {
        switch (c) {
            case '&': out += "&amp;"; break;
            case '<': out += "&lt;"; break;
            case '>': out += "&gt;"; break;
            case '"': out += "&quot;"; break;
            case '\'': out += "&#39;"; break;
            default: out += c;
        }
    }
    return out;
}

std::string svg_chart(const chart_spec& chart) {
    std::vector<double> xs, ys;
    for (const auto& s : chart.series) {
        for (const auto& p : s.points) {
            if (!std::isfinite(p.x) || !std::isfinite(p.y)) continue;
            xs.push_back(p.x);
            ys.push_back(p.y);
            if (std::isfinite(p.y_low) && std::isfinite(p.y_high)) {
                ys.push_back(p.y_low);
                ys.push_back(p.y_high);
            }
        }
    }
    const bool has_data = [&] {
        double lo, hi;
        return extent(xs, chart.log_x, lo, hi) && extent(ys, chart.log_y, lo, hi);
    }();
    for (const auto& r : chart.rules) (r.vertical ? xs : ys).push_back(r.at);

    std::string out = "<figure class=\"chart\" data-chart=\"" + html_escape(chart.id) + "\">";
    out += "<svg viewBox=\"0 0 " + num(width) + " " + num(height) +
           "\" role=\"img\" xmlns=\"http://www.w3.org/2000/svg\" font-size=\"12\" fill=\"currentColor\">";
    out += "<title>" + html_escape(chart.title) + "</title>";
    text(out, (left + right) / 2, height - 8, "middle", "axis-label x", chart.x_label);
    text(out, 0, 0, "middle", "axis-label y", chart.y_label,
         " transform=\"translate(16," + num((top + bottom) / 2) + ") rotate(-90)\"");
    out += "<rect x=\"" + num(left) + "\" y=\"" + num(top) + "\" width=\"" + num(right - left) + "\" height=\"" +
           num(bottom - top) + "\" fill=\"none\" stroke=\"currentColor\" stroke-opacity=\"0.5\"/>";
    if (!has_data) {
        text(out, (left + right) / 2, (top + bottom) / 2, "middle", "no-data", "no data");
        out += "</svg><figcaption>" + html_escape(chart.title) + "</figcaption></figure>";
        return out;
    }
    double x_lo, x_hi, y_lo, y_hi;
    extent(xs, chart.log_x, x_lo, x_hi);
    extent(ys, chart.log_y, y_lo, y_hi);
    const axis ax = make_axis(x_lo, x_hi, chart.log_x, false);
    const axis ay = make_axis(y_lo, y_hi, chart.log_y, chart.y_from_zero);
    const auto px = [&](double x) { return left + ax.at(x) * (right - left); };
    const auto py = [&](double y) { return bottom - ay.at(y) * (bottom - top); };

    // Grid and ticks.
    for (const double t : ax.ticks) {
        const double x = px(t);
        out += "<line x1=\"" + num(x) + "\" y1=\"" + num(top) + "\" x2=\"" + num(x) + "\" y2=\"" + num(bottom) +
               "\" stroke=\"currentColor\" stroke-opacity=\"0.12\"/>";
        text(out, x, bottom + 16, "middle", "tick x", tick_text(t, ax.log ? t : ax.step));
    }
    for (const double t : ay.ticks) {
        const double y = py(t);
        out += "<line x1=\"" + num(left) + "\" y1=\"" + num(y) + "\" x2=\"" + num(right) + "\" y2=\"" + num(y) +
               "\" stroke=\"currentColor\" stroke-opacity=\"0.12\"/>";
        text(out, left - 6, y + 4, "end", "tick y", tick_text(t, ay.log ? t : ay.step));
    }
    // Marked levels and times, labelled at their end, each label a line below the last.
    double times_row = 0, levels_row = 0;
    for (const auto& r : chart.rules) {
        if (r.vertical ? !ax.takes(r.at) || !std::isfinite(px(r.at)) : !ay.takes(r.at) || !std::isfinite(py(r.at))) continue;
        const double x1 = r.vertical ? px(r.at) : left, x2 = r.vertical ? px(r.at) : right;
        const double y1 = r.vertical ? top : py(r.at), y2 = r.vertical ? bottom : py(r.at);
        out += "<line class=\"rule\" x1=\"" + num(x1) + "\" y1=\"" + num(y1) + "\" x2=\"" + num(x2) + "\" y2=\"" +
               num(y2) + "\" stroke=\"currentColor\" stroke-dasharray=\"6 4\" stroke-width=\"1.5\"><title>" +
               html_escape(r.label) + "</title></line>";
        double& row = r.vertical ? times_row : levels_row;
        // A time's label reads to the right of its line, or to the left where
        // it would pass the plot's right edge (a knee at the highest stages).
        const bool fits_right = x1 + 4 + rule_label_char * static_cast<double>(r.label.size()) <= right;
        if (r.vertical)
            text(out, fits_right ? x1 + 4 : x1 - 4, top + 12 + row, fits_right ? "start" : "end", "rule-label", r.label);
        else
            text(out, right - 4, y1 - 4 - row, "end", "rule-label", r.label);
        row += 13;
    }
    // The series, then the legend.
    double legend_x = left;
    for (std::size_t i = 0; i < chart.series.size(); ++i) {
        const chart_series& s = chart.series[i];
        const std::string colour = palette[i % palette_size];
        std::string points, hits, bars;
        std::size_t n = 0;
        for (const auto& p : s.points) {
            // Values so far apart that their span passes a double's range have no place on the axis.
            if (!ax.draws(p.x) || !ay.draws(p.y) || !std::isfinite(px(p.x)) || !std::isfinite(py(p.y))) continue;
            ++n;
            const std::string cx = num(px(p.x)), cy = num(py(p.y));
            points += cx + "," + cy + " ";
            std::string hover = s.name + ": " + value_text(p.y) + " at " + value_text(p.x);
            if (ay.takes(p.y_low) && ay.takes(p.y_high) && std::isfinite(py(p.y_low)) && std::isfinite(py(p.y_high))) {
                hover += " (" + value_text(p.y_low) + " .. " + value_text(p.y_high) + ")";
                bars += "<line x1=\"" + cx + "\" y1=\"" + num(py(p.y_low)) + "\" x2=\"" + cx + "\" y2=\"" +
                        num(py(p.y_high)) + "\"/>";
            }
            hits += "<circle cx=\"" + cx + "\" cy=\"" + cy + "\" r=\"" + (s.markers ? "3" : "5") + "\"" +
                    (s.markers ? "" : " fill-opacity=\"0\"") + "><title>" + html_escape(hover) + "</title></circle>";
        }
        const std::string name = html_escape(s.name);
        out += "<g class=\"series\" data-series=\"" + name + "\" data-points=\"" + std::to_string(n) + "\" stroke=\"" +
               colour + "\" fill=\"" + colour + "\">";
        if (!bars.empty()) out += "<g stroke-width=\"1.5\">" + bars + "</g>";
        if (s.line && n > 0) {
            points.pop_back();
            out += "<polyline fill=\"none\" stroke-width=\"2\"" +
                   std::string(s.dashed ? " stroke-dasharray=\"5 3\"" : "") + " points=\"" + points + "\"/>";
        }
        out += "<g stroke=\"none\">" + hits + "</g></g>";
        // The legend's swatch and name, in a row above the plot.
        out += "<g class=\"legend\"><line x1=\"" + num(legend_x) + "\" y1=\"22\" x2=\"" + num(legend_x + 18) +
               "\" y2=\"22\" stroke=\"" + colour + "\" stroke-width=\"3\"" +
               (s.dashed ? " stroke-dasharray=\"5 3\"" : "") + "/>";
        text(out, legend_x + 22, 26, "start", "legend-name", s.name);
        out += "</g>";
        legend_x += 22 + 7.0 * static_cast<double>(s.name.size()) + 18;
    }
    out += "</svg><figcaption>" + html_escape(chart.title) + "</figcaption></figure>";
    return out;
}

}  // namespace openloop
