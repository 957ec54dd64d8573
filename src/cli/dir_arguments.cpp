#include "openloop/cli/dir_arguments.hpp"

#include "openloop/cli/scenario.hpp"

namespace openloop {

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

}  // namespace openloop
