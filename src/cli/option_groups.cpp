#include "openloop/cli/option_groups.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/cli/agent_options.hpp"
#include "openloop/cli/endpoint_options.hpp"
#include "openloop/cli/load_options.hpp"
#include "openloop/cli/media_options.hpp"
#include "openloop/cli/rag_options.hpp"
#include "openloop/cli/result_options.hpp"
#include "openloop/cli/session_options.hpp"
#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/target_options.hpp"
#include "openloop/cli/trace_options.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/load/workload.hpp"

#include <boost/program_options.hpp>

#include <ctime>
#include <string>

namespace openloop {

namespace po = boost::program_options;

std::string default_out_dir(const char* kind) {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string("results/") + kind + "-" + stamp;
}

void fill_run_options(const po::variables_map& vm, run_command& cmd, bool for_sweep) {
    try {
        fill_target(vm, cmd);
        fill_load(vm, cmd, for_sweep);
        fill_workload(vm, cmd);
        fill_limits(vm, cmd.options);
        fill_results(vm, cmd);
        fill_endpoint(vm, cmd.options);
        fill_agent(vm, cmd.options);
        fill_media(vm, cmd.options);
        fill_sessions(vm, cmd, for_sweep);
        fill_rag(vm, cmd.options);
        check_workload_config(cmd.options.workload);  // the rules between the workload's flags, before any server starts
        cmd.options.watch = fill_signals(vm);
        if (vm.count("metrics-listen")) cmd.options.metrics_listen = vm["metrics-listen"].as<std::string>();
        cmd.options.metrics_linger_s = parse_duration_s(vm["metrics-linger"].as<std::string>(), "--metrics-linger");
        if (cmd.options.metrics_linger_s > 0 && cmd.options.metrics_listen.empty())
            throw usage_error("--metrics-linger keeps --metrics-listen's endpoint open: give --metrics-listen too");
    } catch (const input_error& e) {
        throw usage_error(e.what());
    }
}

po::options_description run_option_groups() {
    po::options_description all;
    all.add(target_options()).add(endpoint_options()).add(load_options()).add(workload_options()).add(rag_options());
    all.add(session_options()).add(agent_options()).add(media_options());
    all.add(trace_options()).add(limits_options());
    all.add(results_options());
    all.add(signal_options());
    return all;
}

}  // namespace openloop
