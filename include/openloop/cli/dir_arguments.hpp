#pragma once
// The command line of the commands that read result directories back
// (report, merge, compare): options, then the directories. The directories
// themselves are run/result_dir's.

#include "openloop/base/input_error.hpp"
#include "openloop/cli/usage.hpp"

#include <boost/program_options.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// opts, and every word that is not an option one of the directories (at most
// max_dirs; -1: any number), under "dirs". Throws usage_error "COMMAND: ...".
boost::program_options::variables_map parse_dirs_command(const std::vector<std::string>& args,
                                                         const boost::program_options::options_description& opts,
                                                         int max_dirs, std::string_view command);
// The directories given (empty when none).
std::vector<std::string> given_dirs(const boost::program_options::variables_map& vm);

// Returns body(); an input_error it throws (a result file missing, unreadable
// or not openloop's, named by run/result_dir) is thrown again as a usage_error
// "COMMAND: ...".
template <class F>
auto naming_command(std::string_view command, F&& body) -> decltype(body()) {
    try {
        return body();
    } catch (const input_error& e) {
        throw usage_error(std::string(command) + ": " + e.what());
    }
}

}  // namespace openloop
