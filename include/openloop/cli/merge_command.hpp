#pragma once
// `openloop merge DIR... --out DIR`: runs (shards of one run, or repeats)
// combined into one result (results/merge.hpp).

#include <string>
#include <vector>

namespace openloop {

int merge_main(const std::vector<std::string>& args);

}  // namespace openloop
