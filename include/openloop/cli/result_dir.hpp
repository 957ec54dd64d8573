#pragma once
// What the commands that read results back (report, merge, compare) share:
// a result directory's files, read whole, with errors that name the file.

#include <boost/program_options.hpp>

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// The command line of a command that reads result directories: opts, and
// every word that is not an option one of the directories (at most max_dirs;
// -1: any number), under "dirs". Throws usage_error "COMMAND: ...".
boost::program_options::variables_map parse_dirs_command(const std::vector<std::string>& args,
                                                         const boost::program_options::options_description& opts,
                                                         int max_dirs, std::string_view command);
// The directories given (empty when none).
std::vector<std::string> given_dirs(const boost::program_options::variables_map& vm);

// Throws usage_error "COMMAND: cannot read PATH".
std::string read_result_file(const std::filesystem::path& path, std::string_view command);

// Throws usage_error unless dir is a directory holding a requests.jsonl.
void require_request_log(const std::filesystem::path& dir, std::string_view command);

}  // namespace openloop
