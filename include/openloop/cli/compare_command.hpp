#pragma once
// `openloop compare BASE NEW`: two runs metric by metric, with confidence
// intervals and release gates (results/compare.hpp).

#include <string>
#include <vector>

namespace openloop {

int compare_main(const std::vector<std::string>& args);

}  // namespace openloop
