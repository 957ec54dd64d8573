#pragma once
// A chart drawn by openloop itself as inline SVG, for report.html: axes with
// their units and readable ticks (1, 2, 5 x 10^k; decades on a log axis),
// lines and points with their values on hover (an SVG <title>), error bars,
// marked levels and times (an SLO, a knee, a change point), a legend, and
// the Okabe–Ito palette, which colour-blind readers tell apart. Axes and text
// take the page's text colour, so a dark page keeps them. Pure: numbers in,
// text out. Every chart says what it holds for a reader of the DOM (a test,
// a script): data-chart its id, each line data-series and data-points.

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

struct chart_point {
    double x = 0;
    double y = 0;
    double y_low = NAN;   // an error bar, drawn where both ends are finite
    double y_high = NAN;
};

struct chart_series {
    chart_series() = default;
    explicit chart_series(std::string name_, std::vector<chart_point> points_ = {}, bool line_ = true,
                          bool markers_ = false, bool dashed_ = false)
        : name(std::move(name_)), points(std::move(points_)), line(line_), markers(markers_), dashed(dashed_) {}

    std::string name;
    std::vector<chart_point> points;
    bool line = true;      // joined in order (false: points only)
    bool markers = false;  // a visible dot at each point
    bool dashed = false;   // a fitted or reference line, not measured values
};

// A level (horizontal) or a time (vertical) marked across the plot.
struct chart_rule {
    bool vertical = false;
    double at = 0;
    std::string label;
};

struct chart_spec {
    chart_spec() = default;
    chart_spec(std::string id_, std::string title_, std::string x_label_, std::string y_label_, bool log_x_ = false)
        : id(std::move(id_)), title(std::move(title_)), x_label(std::move(x_label_)), y_label(std::move(y_label_)),
          log_x(log_x_) {}

    std::string id;       // data-chart
    std::string title;
    std::string x_label;  // with the unit: "time (s)"
    std::string y_label;
    bool log_x = false;   // a log axis draws a point of 0 at its low edge, leaves out one below
    bool log_y = false;
    bool y_from_zero = true;  // a linear y axis starts at 0 unless a value lies below
    std::vector<chart_series> series;
    std::vector<chart_rule> rules;
};

// <figure> with the <svg> and its caption; a chart with no finite point says
// "no data" in its plot.
std::string svg_chart(const chart_spec& chart);

// Ticks on a linear axis over [lo, hi]: about `target` of them, at multiples
// of 1, 2 or 5 x 10^k, the first at or above lo and the last at or below hi.
std::vector<double> linear_ticks(double lo, double hi, int target = 5);
// Ticks on a log axis over [lo, hi] (lo > 0): each decade's 1, 2 and 5, or
// only its 1 when the span is wide.
std::vector<double> log_ticks(double lo, double hi);
// A tick's label: as few digits as tell it from its neighbours (step apart),
// thousands as "k" past 10,000 ("20k").
std::string tick_text(double v, double step);

// Text escaped for HTML and SVG (&, <, >, ", ').
std::string html_escape(const std::string& text);

}  // namespace openloop
