#include "openloop/cli/scenario.hpp"

#include "openloop/cli/usage.hpp"

#include <boost/program_options.hpp>

#include <fstream>

namespace openloop {

namespace po = boost::program_options;

po::variables_map parse_with_scenario(const std::vector<std::string>& args, const po::options_description& all,
                                      const char* command) {
    po::options_description cli_only;
    cli_only.add(all).add_options()("scenario", po::value<std::string>(), "scenario file");
    po::positional_options_description pos;
    pos.add("scenario", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(cli_only).positional(pos).run(), vm);
        if (vm.count("scenario")) {
            const auto path = vm["scenario"].as<std::string>();
            std::ifstream in(path);
            if (!in) throw usage_error(std::string(command) + ": cannot read scenario file " + path);
            try {
                po::store(po::parse_config_file(in, all), vm);
            } catch (const po::error& e) {
                throw usage_error(std::string(command) + ": scenario " + path + ": " + e.what());
            }
        }
        po::notify(vm);
    } catch (const po::error& e) {
        throw usage_error(std::string(command) + ": " + e.what() + " (see openloop " + command + " --help)");
    }
    return vm;
}

}  // namespace openloop
