#include "openloop/cli/report_command.hpp"

#include "openloop/cli/dir_arguments.hpp"
#include "openloop/cli/soak_command.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/results/rebuild.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "openloop/run/report_file.hpp"
#include "openloop/run/result_dir.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>
#include <optional>

namespace openloop {

namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

constexpr const char* report_usage =
    "Usage: openloop report DIR [--html] [--force] [--json]\n\n"
    "Rebuilds summary.json and the table of a run, sweep stage or soak that did not finish (killed, or the\n"
    "machine lost) from what it left in DIR: run.json (how it was driven, written before the first request),\n"
    "requests.jsonl (one line per request that ended, flushed every second) and, for a soak, windows.jsonl\n"
    "(flushed per window; its verdicts are judged again). The summary says it was rebuilt: the run is\n"
    "marked partial, requests still in flight at the end are not counted (they have no line), and ITL is\n"
    "not rebuilt (no per-chunk times are kept on disk). A torn last line is counted and skipped.\n"
    "A DIR with a summary.json is a finished run: it is left alone unless --force. A summary.json that is not\n"
    "one (not JSON, or no verdict in it) is moved aside to summary.json.unreadable, said on stderr, and rebuilt\n"
    "(its \"rebuilt\" says why); without run.json to rebuild it from, exit 2.\n\n"
    "--html writes DIR/report.html, the page a person opens in a browser (one self-contained file: charts,\n"
    "tables, how the result was made), for a finished run, soak, merge or sweep of any age, and prints its path.\n"
    "A rebuilt summary gets its report.html with or without it, as every run, sweep, soak and merge does.\n\n";

// Rebuilds dir's summary.json (report_main's work, once the command line is read).
void report(const result_dir& dir, const po::variables_map& vm) {
    if (!fs::is_directory(dir.path())) throw usage_error("report: " + dir.path().string() + " is not a directory");
    const bool html = vm["html"].as<bool>();
    if (html && dir.is_sweep()) {
        std::cout << "report: " << write_report_html(dir).string() << "\n";
        return;
    }
    const fs::path summary_file = dir.file(result_file::summary_json);
    // An unreadable summary.json is no finished run's: it is rebuilt, and kept aside, never overwritten unseen.
    std::optional<std::string> unreadable;
    if (const std::optional<std::string> summary = dir.read_if_any(result_file::summary_json)) {
        unreadable = summary_problem(*summary);
        if (!unreadable && !vm["force"].as<bool>()) {
            if (html) {
                std::cout << "report: " << write_report_html(dir).string() << "\n";
                return;
            }
            std::cout << dir.path().string() << " is a finished run: its summary.json stands (--force rebuilds it)\n";
            return;
        }
    }
    const std::optional<run_context> described = dir.run_json();
    if (!described)
        throw usage_error("report: " + dir.file(result_file::run_json).string() +
                          " is missing: not an openloop result directory" +
                          (unreadable ? "; and " + summary_file.string() + " is unreadable (" + *unreadable +
                                            "): nothing to rebuild it from"
                                      : std::string()));
    if (unreadable) {
        const fs::path aside = dir.set_summary_aside();
        std::cerr << "openloop report: " << summary_file.string() << " is unreadable (" << *unreadable
                  << "): kept as " << aside.string() << "; rebuilding it from requests.jsonl\n";
    }
    run_context ctx = *described;
    rebuilt_stats rebuilt = rebuild_stats(dir.read_if_any(result_file::requests_jsonl).value_or(""));
    // A sessions run's session ends: how each ended, which requests.jsonl cannot tell.
    if (const std::optional<std::string> sessions = dir.read_if_any(result_file::sessions_jsonl))
        rebuild_sessions(*sessions, rebuilt.stats.sessions);
    ctx.partial = true;
    ctx.partial_reason = "rebuilt by openloop report from requests.jsonl (" + std::to_string(rebuilt.lines) + " lines): " +
                         (unreadable ? "its summary.json was unreadable, so whether the run finished is not known"
                                     : "the run did not finish") +
                         "; requests in flight at its end are not counted";
    if (rebuilt.bad_lines > 0)
        ctx.partial_reason += "; " + std::to_string(rebuilt.bad_lines) + " unreadable line(s), the first at line " +
                              std::to_string(rebuilt.first_bad_line);
    const run_result result = make_run_result(rebuilt.stats, ctx);
    boost::json::object summary = summary_json(result);
    summary["rebuilt"] = boost::json::object{{"from", result_file::requests_jsonl},
                                             {"lines", rebuilt.lines},
                                             {"bad_lines", rebuilt.bad_lines},
                                             {"itl", "not rebuilt: no per-chunk times on disk"},
                                             {"unreadable_summary", unreadable ? boost::json::value(*unreadable)
                                                                               : boost::json::value(nullptr)}};
    std::string verdicts;
    if (dir.has(result_file::windows_jsonl)) {
        verdicts = write_soak_summary(dir, std::move(summary), vm["warmup-windows"].as<std::size_t>(), nullptr);
    } else {
        dir.write_json(result_file::summary_json, summary);
    }
    const std::optional<fs::path> page = try_write_report_html(dir);
    if (vm["json"].as<bool>()) {
        std::cout << dir.read(result_file::summary_json);
    } else {
        std::cout << (unreadable ? "rebuilt in place of an unreadable summary: " : "rebuilt from a run that did not finish: ")
                  << summary_file.string() << "\n";
        if (!verdicts.empty()) std::cout << verdicts << "\n";
        std::cout << format_table(result);
        if (page) std::cout << "report: " << page->string() << "\n";
    }
}

}  // namespace

int report_main(const std::vector<std::string>& args) {
    po::options_description opts("Options", help_width, help_width / 2);
    opts.add_options()("help,h", "show this help")("force", po::bool_switch(), "rebuild even when summary.json exists")(
        "html", po::bool_switch(), "write DIR/report.html and print its path")(
        "json", po::bool_switch(), "print summary.json instead of the table")(
        "warmup-windows", po::value<std::size_t>()->default_value(2), "a soak's windows left out of its trends");
    const po::variables_map vm = parse_dirs_command(args, opts, 1, "report");
    if (vm.count("help")) {
        std::cout << report_usage << opts;
        return 0;
    }
    const auto dirs = given_dirs(vm);
    if (dirs.empty()) throw usage_error("report: name the result directory: openloop report DIR");
    naming_command("report", [&] { report(result_dir(dirs.front()), vm); });
    return 0;
}

}  // namespace openloop
