#pragma once
// The page --metrics-listen serves at /: one self-contained HTML file (its
// style and script inline, nothing fetched but /live.json from the same
// server) that polls /live.json once a second and draws the run's seconds as
// they come, with what runs (a sweep's stage) and the last window (a soak's).
// Its charts follow report.html's conventions for a reader of the DOM:
// figure.chart[data-chart], g.series[data-series][data-points], #status.

#include <string_view>

namespace openloop {

std::string_view live_page_html();

}  // namespace openloop
