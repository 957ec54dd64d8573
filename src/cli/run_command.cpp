#include "openloop/cli/run_command.hpp"

#include "openloop/base/result_files.hpp"
#include "openloop/cli/option_groups.hpp"
#include "openloop/cli/scenario.hpp"
#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/target.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/results/history.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "openloop/run/prepare.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <ctime>
#include <filesystem>
#include <fstream>
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
            std::cout << "\nresults: " << cmd.options.out_dir << "/ (summary.json, requests.jsonl, "
                      << (outcome.result.stats.sessions.enabled() ? "sessions.jsonl, " : "") << "timeseries.csv)\n"
                      << "report:  " << cmd.options.out_dir << "/" << result_file::report_html << " (open it in a browser)\n";
    }
    if (!outcome.interrupted) linger_live_metrics(cmd.options);
    return finish_run(cmd, outcome);
}

int finish_run(const run_command& cmd, const run_outcome& outcome) {
    int status = run_exit_status(outcome);
    for (const auto& t : cmd.thresholds) {
        if (const auto why = threshold_failure(t, outcome.result)) {
            std::cerr << "openloop: threshold failed: " << *why << "\n";
            if (status == 0) status = 6;
        }
    }
    if (!cmd.append_result.empty()) {
        const bool fresh = !std::filesystem::exists(cmd.append_result) || std::filesystem::file_size(cmd.append_result) == 0;
        std::ofstream csv(cmd.append_result, std::ios::app);
        if (fresh) csv << history_header();
        const std::time_t now = std::time(nullptr);
        char date[32];
        std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S%z", std::localtime(&now));
        csv << history_row(outcome.result, date, cmd.label, cmd.options.out_dir);
        if (!csv.flush()) std::cerr << "openloop: cannot append to " << cmd.append_result << "\n";
    }
    return status;
}

run_outcome run_parsed(run_command& cmd) {
    const resolved_target target = settle_run(cmd, cmd.options);  // a sim: target's simulator stops with it
    const run_plan plan = prepare_run(cmd.options);
    return run_load(plan);
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
    po::options_description gates("Gates and history", help_width, help_width / 2);
    gates.add_options()("threshold", po::value<std::vector<std::string>>()->composing(),
                        "pass/fail on this run, k6 style (repeatable): METRIC<LIMIT or METRIC>LIMIT, e.g. ttft_p99<1s, "
                        "e2e_p50<3s, error_rate<1%, request_throughput>50; exit 6 when one fails")(
        "append-result", po::value<std::string>(), "append this run's row to a CSV history (runs.csv), header first")(
        "label", po::value<std::string>(), "the run's label in that history");
    po::options_description everything;
    everything.add(help).add(all).add(gates);
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
              "failed than --max-error-rate allows, 6 a --threshold failed, 130 interrupted, 2 bad usage,\n"
              "1 other errors.\n"
              "Failing fast: when the first 8 requests to end all failed with the same HTTP 401, 403, 404\n"
              "or 405, the same redirect (3xx), or the same connect or TLS failure, and none succeeded, the\n"
              "run stops at once with the server's message, writes what it has, and exits 3 (a sweep stops\n"
              "there too).\n\n"
           << value_syntax_help << everything;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    with_file_lines(parsed, [&] { fill_run_options(vm, cmd, false); });
    if (vm.count("threshold")) {
        for (const auto& t : vm["threshold"].as<std::vector<std::string>>()) {
            try {
                cmd.thresholds.push_back(parse_threshold(t));
            } catch (const std::invalid_argument& e) {
                throw usage_error(e.what());
            }
        }
    }
    if (vm.count("append-result")) cmd.append_result = vm["append-result"].as<std::string>();
    if (vm.count("label")) cmd.label = vm["label"].as<std::string>();
    return cmd;
}

}  // namespace openloop
