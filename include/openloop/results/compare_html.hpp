#pragma once
// report.html of a comparison of two runs (`openloop compare BASE NEW --html
// FILE`), from the comparison's JSON: the verdict (worse in red, naming what
// got worse, and the gates that failed), what differs between the two runs,
// a forest plot of every metric's relative change with its 99 % interval and
// the ±min-change band, then the table. Pure.

#include <boost/json/object.hpp>

#include <string>
#include <vector>

namespace openloop {

// comparison: compare_json's object; failed_gates: each failing gate in words.
std::string compare_report_html(const boost::json::object& comparison, const std::vector<std::string>& failed_gates);

// The forest plot alone: a row per metric, its change relative to base (%) as
// a dot, its interval as a bar, coloured by verdict.
std::string svg_forest(const boost::json::object& metrics, double min_change);

}  // namespace openloop
