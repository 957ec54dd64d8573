#include "openloop/cli/run_command.hpp"

#include "openloop/cli/option_groups.hpp"
#include "openloop/cli/scenario.hpp"
#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/target.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <iostream>
#include <sstream>

namespace openloop {

namespace po = boost::program_options;

int run_main(const std::vector<std::string>& args) {
    auto cmd = parse_run_command(args);
    if (cmd.help) {
        std::cout << cmd.help_text;
        return 0;
    }
    const auto outcome = run_parsed(cmd);
    if (cmd.json) {
        std::cout << boost::json::serialize(summary_json(outcome.result)) << "\n";
    } else {
        std::cout << format_table(outcome.result);
        if (!cmd.options.out_dir.empty())
            std::cout << "\nresults: " << cmd.options.out_dir << "/ (summary.json, requests.jsonl, timeseries.csv)\n";
    }
    return run_exit_status(outcome);
}

run_outcome run_parsed(run_command& cmd) {
    if (cmd.options.insecure)
        std::cerr << "openloop: warning: --insecure: the server's certificate and host name are NOT verified\n";
    // Kept alive for the run: a sim: target's simulator stops with it.
    auto target = resolve_target(cmd);
    cmd.options.url = target.url;
    start_live_metrics(cmd.options);
    raise_fd_limit();
    return run_load(cmd.options);
}

int run_exit_status(const run_outcome& outcome) {
    if (outcome.interrupted) return 130;
    // Failing fast is an invalid run whatever its error rate: the reason is its first line.
    if (outcome.stopped_early) return 3;
    if (outcome.result.validity.too_many_errors) return 4;
    return outcome.result.validity.valid ? 0 : 3;
}

run_command parse_run_command(const std::vector<std::string>& args) {
    const auto all = run_option_groups();
    po::options_description help("General", help_width, help_width / 2);
    help.add_options()("help,h", "show this help");
    po::options_description everything;
    everything.add(help).add(all);
    const auto parsed = parse_with_scenario(args, everything, "run");
    const auto& vm = parsed.vm;
    run_command cmd;
    if (vm.count("help")) {
        std::ostringstream os;
        os << "Usage: openloop run [SCENARIO.ini] [options]\n\n"
              "Sends requests on an open-loop arrival schedule (each at its intended time, whatever is in\n"
              "flight), streams every response, and reports TTFT, TPOT, ITL, E2E latency, throughput and\n"
              "goodput. Latency clocks start at the intended send time, so a slow server cannot hide its\n"
              "queueing (no coordinated omission). A scenario file holds 'option = value' lines; the command\n"
              "line wins. Exit status: 0 valid run, 3 invalid run (reason printed first), 4 more requests\n"
              "failed than --max-error-rate allows, 130 interrupted, 2 bad usage, 1 other errors.\n"
              "Failing fast: when the first 8 requests to end all failed with the same HTTP 401, 403, 404\n"
              "or 405, or the same connect or TLS failure, and none succeeded, the run stops at once with\n"
              "the server's message, writes what it has, and exits 3 (a sweep stops there too).\n\n"
           << value_syntax_help << everything;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    with_file_lines(parsed, [&] { fill_run_options(vm, cmd, false); });
    return cmd;
}

}  // namespace openloop
