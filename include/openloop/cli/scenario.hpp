#pragma once
// Scenario files: `openloop run|sweep SCENARIO.ini` (and `openloop sim
// --config FILE`) read 'option = value' lines (Program_options config syntax)
// for any option the command line does not give. A bad value, wherever it was
// written, is one usage error naming the flag, and for a value from the file
// also FILE:LINE.

#include "openloop/base/input_error.hpp"
#include "openloop/cli/usage.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct parsed_command {
    boost::program_options::variables_map vm;
    // Option name -> "FILE:LINE" for each value that came from the file.
    std::map<std::string, std::string> from_file;
};

// Parses args (flags, and the file named by file_option: positional when
// positional is set), then the file: the first stored value wins, so the
// command line does. Every numeric option's text reads through base/quantity
// first (Program_options alone takes "-1" for an unsigned as 2^64-1, and
// "inf" and "nan" as numbers). Throws usage_error naming the command, the
// flag and, for the file's values, FILE:LINE.
parsed_command parse_command_line(const std::vector<std::string>& args,
                                  const boost::program_options::options_description& all, const char* command,
                                  const char* file_option, bool positional);

// Throws usage_error (where: '...') when text holds a placeholder of
// Program_options' messages, which would make it loop: every command's
// arguments go through it before Program_options sees them.
void refuse_placeholders(std::string_view text, const std::string& where);

// run and sweep: an optional scenario path first, then flags.
parsed_command parse_with_scenario(const std::vector<std::string>& args,
                                   const boost::program_options::options_description& all, const char* command);

// The FILE:LINE of the first option from the file that message names ("--NAME"); empty if none.
std::string file_line_named(const parsed_command& p, const std::string& message);

// Calls fill(); a usage_error or input_error it throws is thrown again as a
// usage_error, with the FILE:LINE in front when it names an option whose value
// came from the file.
template <class F>
void with_file_lines(const parsed_command& p, F&& fill) {
    try {
        fill();
    } catch (const input_error& e) {
        const auto at = file_line_named(p, e.what());
        throw usage_error(at.empty() ? std::string(e.what()) : at + ": " + e.what());
    } catch (const usage_error& e) {
        const auto at = file_line_named(p, e.what());
        if (at.empty()) throw;
        throw usage_error(at + ": " + e.what());
    }
}

}  // namespace openloop
