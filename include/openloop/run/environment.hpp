#pragma once
// Facts about where a run ran, for summary.json: host, cores, kernel,
// versions, start time.

#include <boost/json/object.hpp>

namespace openloop {

boost::json::object environment_info();

}  // namespace openloop
