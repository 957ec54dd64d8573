#pragma once
// What the commands that read results back (report, merge, compare) share:
// a result directory's files, read whole, with errors that name the file.

#include <filesystem>
#include <string>
#include <string_view>

namespace openloop {

// Throws usage_error "COMMAND: cannot read PATH".
std::string read_result_file(const std::filesystem::path& path, std::string_view command);

// Throws usage_error unless dir is a directory holding a requests.jsonl.
void require_request_log(const std::filesystem::path& dir, std::string_view command);

}  // namespace openloop
