#pragma once
// report.html of one result: a run, a merge, a sweep stage or a soak, drawn
// from its files as they are on disk (summary.json; timeseries.csv for the
// per-second charts; a soak's windows.jsonl for its signals), so that
// `openloop report DIR --html` draws a result of any age as the run itself
// does. Pure: text in, the page out.

#include "openloop/results/svg_chart.hpp"

#include <boost/json/object.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace openloop {

class histogram;

// title: what the page calls the result (its directory).
std::string run_report_html(const std::string& title, const boost::json::object& summary,
                            std::string_view timeseries_csv, std::string_view windows_jsonl);

// A latency distribution as its CDF, in ms: the percentiles 100 i / n for
// i = 0 .. n, n = min(count, 200) (so count + 1 points up to 200 requests,
// 201 past it); none for an empty histogram.
std::vector<chart_point> cdf_points(const histogram& h);

// timeseries.csv's columns by name, a blank cell NaN; rows that are not
// numbers are skipped.
struct csv_columns {
    std::vector<std::string> names;
    std::vector<std::vector<double>> rows;
    std::vector<double> column(std::string_view name) const;  // empty if there is no such column
};
csv_columns parse_numeric_csv(std::string_view text);

}  // namespace openloop
