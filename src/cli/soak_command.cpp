#include "openloop/cli/soak_command.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/cli/option_groups.hpp"
#include "openloop/cli/scenario.hpp"
#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/target.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/results/soak_report.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "openloop/run/prepare.hpp"
#include "openloop/run/report_file.hpp"
#include "openloop/run/result_dir.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <iostream>
#include <sstream>

namespace openloop {

namespace po = boost::program_options;

namespace {

po::options_description soak_option_group() {
    po::options_description soak("Soak", help_width, help_width / 2);
    soak.add_options()
        ("interval", po::value<std::string>()->default_value("60s"),
         "window length: one row of windows.csv / windows.jsonl per window, percentiles of that window alone")
        ("warmup-windows", po::value<std::size_t>()->default_value(2),
         "windows left out of every trend (caches filling, pools opening)");
    return soak;
}

}  // namespace

std::string write_soak_summary(const result_dir& dir, boost::json::object summary, std::size_t warmup_windows,
                               bool* changed) {
    const soak_windows rows = parse_windows_jsonl(dir.read_if_any(result_file::windows_jsonl).value_or(""));
    const soak_report report = judge_soak(rows, warmup_windows);
    boost::json::object soak = soak_json(report);
    if (rows.bad_lines > 0) {
        soak["bad_window_lines"] = rows.bad_lines;
        soak["first_bad_window_line"] = rows.first_bad_line;
    }
    summary["soak"] = std::move(soak);
    dir.write_json(result_file::summary_json, summary);
    try_write_report_html(dir);
    if (changed) *changed = report.changed;
    return format_soak(report);
}

soak_command parse_soak_command(const std::vector<std::string>& args) {
    po::options_description help("General", help_width, help_width / 2);
    help.add_options()("help,h", "show this help");
    po::options_description everything;
    everything.add(help).add(soak_option_group()).add(run_option_groups());
    const auto parsed = parse_with_scenario(args, everything, "soak");
    const auto& vm = parsed.vm;
    soak_command cmd;
    if (vm.count("help")) {
        std::ostringstream os;
        os << "Usage: openloop soak [SCENARIO.ini] [options]\n\n"
              "A long open-loop run (a fixed rate, a --rate-profile, or a --trace looped for --duration) that\n"
              "tells whether anything grows or drifts. Every --interval window is one row of windows.csv and\n"
              "windows.jsonl, appended and flushed as it closes: offered and achieved rate, in flight, the\n"
              "window's own TTFT/ITL/TPOT/E2E percentiles, errors by class, the generator's RSS and CPU, and\n"
              "the server signals sampled at the window's end (--scrape, --server-pid; against a sim: target\n"
              "its /metrics and process are watched by default). At the end each signal's series after the\n"
              "warm-up windows gets a Theil-Sen slope per hour with its 95 % interval and a step check; the\n"
              "first line says whether anything grows. Ctrl-C ends the soak early with every result written;\n"
              "after a kill, `openloop report DIR` rebuilds the summary from what is on disk.\n"
              "--duration defaults to 1h. Exit status: 0 valid and nothing grows or drifts, 5 valid but some\n"
              "signal grows, declines or steps, 3 invalid run, 4 too many errors, 130 interrupted, 2 bad usage.\n\n"
           << value_syntax_help << everything;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    with_file_lines(parsed, [&] {
        fill_run_options(vm, cmd.run, false);
        auto& o = cmd.run.options;
        if (!vm.count("duration") && !vm.count("num-requests")) o.duration_s = 3600;
        o.workload.trace_loop = true;  // a soak runs for its duration, lap after lap of a trace
        const double interval = parse_duration_s(vm["interval"].as<std::string>(), "--interval");
        if (interval < 0.1) throw usage_error("--interval must be at least 100ms");
        o.soak_window = std::chrono::nanoseconds(static_cast<std::int64_t>(interval * 1e9));
        // Hours of silence is no progress report: a line per window unless --progress off.
        o.window_lines = vm["progress"].as<std::string>() != "off";
        cmd.warmup_windows = vm["warmup-windows"].as<std::size_t>();
        if (vm.count("out") && vm["out"].as<std::string>() == "-")
            throw usage_error("--out -: a soak writes its windows to disk; name a directory");
        if (!vm.count("out")) o.out_dir = default_out_dir("soak");
        o.config["command"] = "soak";
    });
    return cmd;
}

int soak_main(const std::vector<std::string>& args) {
    auto cmd = parse_soak_command(args);
    if (cmd.help) {
        std::cout << cmd.help_text;
        return 0;
    }
    auto& o = cmd.run.options;
    const resolved_target target = settle_run(cmd.run, o);
    // The simulator openloop started is a server we can watch without being told how.
    if (target.sim && !o.watch.enabled()) {
        o.watch.scrape_urls.push_back(target.sim->url + "/metrics");
        o.watch.server_pid = target.sim->process.pid();
    }
    const auto outcome = run_load(prepare_run(o));
    bool changed = false;
    const result_dir dir(o.out_dir);
    const std::string verdicts = write_soak_summary(dir, summary_json(outcome.result), cmd.warmup_windows, &changed);
    if (cmd.run.json) {
        std::cout << dir.read(result_file::summary_json);
    } else {
        std::cout << verdicts << "\n" << format_table(outcome.result);
        std::cout << "\nresults: " << o.out_dir << "/ (summary.json, windows.csv, windows.jsonl, requests.jsonl)\n"
                  << "report:  " << o.out_dir << "/" << result_file::report_html << " (open it in a browser)\n";
    }
    if (!outcome.interrupted) linger_live_metrics(o);
    const int status = run_exit_status(outcome);
    return status == 0 && changed ? 5 : status;
}

}  // namespace openloop
