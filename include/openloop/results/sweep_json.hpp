#pragma once
// sweep.json: the typed sweep report as JSON, and a stored stage row read
// back, so measured stages can be judged again against other SLOs
// (analyse_sweep) without running them again.

#include "openloop/results/sweep_report.hpp"

#include <boost/json/object.hpp>

namespace openloop {

boost::json::object to_json(const stage_row& row);
boost::json::object to_json(const sweep_report& report);

// The inverse of to_json(stage_row); throws std::invalid_argument naming the
// first key that is missing or of the wrong type.
stage_row stage_row_from_json(const boost::json::object& row);

}  // namespace openloop
