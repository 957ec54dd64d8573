#pragma once
// Scenario files: `openloop run|sweep SCENARIO.ini` reads 'option = value'
// lines (Program_options config syntax) for any option the command line
// does not give.

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <string>
#include <vector>

namespace openloop {

// Parses args (an optional scenario path first, then flags), then the
// scenario file: the first stored value wins, so the command line does.
// Throws usage_error naming the command, and the file for its errors.
boost::program_options::variables_map parse_with_scenario(const std::vector<std::string>& args,
                                                          const boost::program_options::options_description& all,
                                                          const char* command);

}  // namespace openloop
