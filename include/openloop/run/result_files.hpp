#pragma once
// Result directories read back to be merged (`openloop merge`, a sharded
// sweep's stages) and a merged result written: requests.jsonl, run.json and
// summary.json's verdict in; summary.json, requests.jsonl and run.json out.

#include "openloop/results/merge.hpp"

#include <filesystem>

namespace openloop {

// Throws input_error unless dir is a run's result directory (one holding a
// requests.jsonl; a sweep's stages are, the sweep itself is not).
void check_result_dir(const std::filesystem::path& dir);

// Throws input_error naming the directory or file that is missing or not
// an openloop result.
merge_input read_result_dir(const std::filesystem::path& dir);

// Throws std::runtime_error naming the file that cannot be written.
void write_merged(const merged_result& merged, const std::filesystem::path& out);

}  // namespace openloop
