#pragma once
// report.html of a sweep, from its sweep.json: the capacity in plain words
// first, then its curves (achieved against offered, latency percentiles with
// their confidence bars, requests in flight, errors), each with the SLO
// limits and the knees marked, then the stages' table. Pure.

#include <boost/json/object.hpp>

#include <string>

namespace openloop {

std::string sweep_report_html(const std::string& title, const boost::json::object& sweep);

}  // namespace openloop
