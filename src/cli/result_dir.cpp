#include "openloop/cli/result_dir.hpp"

#include "openloop/cli/scenario.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/base/input_error.hpp"
#include "openloop/run/result_files.hpp"

#include <fstream>
#include <sstream>

namespace openloop {

namespace fs = std::filesystem;
namespace po = boost::program_options;

po::variables_map parse_dirs_command(const std::vector<std::string>& args, const po::options_description& opts,
                                     int max_dirs, std::string_view command) {
    const std::string c(command);
    po::options_description all;
    all.add(opts).add_options()("dirs", po::value<std::vector<std::string>>());
    po::positional_options_description pos;
    pos.add("dirs", max_dirs);
    po::variables_map vm;
    for (const auto& arg : args) refuse_placeholders(arg, c);
    try {
        po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    } catch (const po::error& e) {
        throw usage_error(c + ": " + e.what());
    }
    return vm;
}

std::vector<std::string> given_dirs(const po::variables_map& vm) {
    return vm.count("dirs") ? vm["dirs"].as<std::vector<std::string>>() : std::vector<std::string>{};
}

std::string read_result_file(const fs::path& path, std::string_view command) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw usage_error(std::string(command) + ": cannot read " + path.string());
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

void require_request_log(const fs::path& dir, std::string_view command) {
    try {
        check_result_dir(dir);
    } catch (const input_error& e) {
        throw usage_error(std::string(command) + ": " + e.what());
    }
}

}  // namespace openloop
