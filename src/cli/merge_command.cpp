#include "openloop/cli/merge_command.hpp"

#include "openloop/cli/dir_arguments.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/results/merge.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/table.hpp"
#include "openloop/run/report_file.hpp"
#include "openloop/run/result_dir.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <filesystem>
#include <iostream>

namespace openloop {

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* merge_usage =
    "Usage: openloop merge DIR... --out DIR [--json] [--allow-mismatch]\n\n"
    "Combines runs into one result: the shards of one run (started together, e.g. with --shard), or repeats of\n"
    "it. The parts' requests.jsonl are put end to end, each line tagged with \"origin\" (its directory), and the\n"
    "statistics rebuilt from them, so counts, token totals and the TTFT, TPOT, E2E, lag, connect and TTFB\n"
    "histograms are exact, as if one run had made every request. Throughput is over the time at least one part\n"
    "was running (the union of their windows): shards add their rates, repeats their durations. Every part's\n"
    "times are moved onto its host's wall clock (the offset its summary.json records under \"start\"), so shards\n"
    "run on different hosts line up as their --start-at did; the merged summary states the spread of their\n"
    "start times. ITL is not merged (no per-chunk times on disk). The verdict is the worst of the parts', with\n"
    "each part's reasons (a shard that started late among them), and the merged run's own (its error rate,\n"
    "its lag). Writes summary.json (with \"merged\": the parts), requests.jsonl and run.json into --out.\n\n"
    "The parts must be of one run: each part's run.json is checked against the first's, and parts that differ in\n"
    "target, model, the tokenizer it calibrated, endpoint, lengths, prompts, rate, arrival or sampling are\n"
    "refused, naming what differs (seed, shard, start time, duration, warm-up, timeouts and output flags may\n"
    "differ). --allow-mismatch merges them anyway: \"merged\" records the differences and that they were allowed,\n"
    "and the table names every part's target. A part without run.json cannot be checked and is said so.\n\n"
    "Exit status: 0 valid, 3 invalid, 2 bad usage or an unreadable part.\n\n";

}  // namespace

int merge_main(const std::vector<std::string>& args) {
    po::options_description opts("Options", help_width, help_width / 2);
    opts.add_options()("help,h", "show this help")("out", po::value<std::string>(), "the merged result's directory")(
        "json", po::bool_switch(), "print summary.json instead of the table")(
        "allow-mismatch", po::bool_switch(), "merge parts of different runs (recorded in the result)");
    const po::variables_map vm = parse_dirs_command(args, opts, -1, "merge");
    if (vm.count("help")) {
        std::cout << merge_usage << opts;
        return 0;
    }
    const auto dirs = given_dirs(vm);
    if (dirs.empty()) throw usage_error("merge: name the runs to merge: openloop merge DIR... --out DIR");
    if (!vm.count("out")) throw usage_error("merge: --out DIR is needed: where the merged result goes");
    const fs::path out = vm["out"].as<std::string>();
    for (const auto& d : dirs)
        if (fs::weakly_canonical(d) == fs::weakly_canonical(out))
            throw usage_error("merge: --out " + out.string() + " is one of the parts; choose a new directory");

    std::vector<merge_input> parts;
    naming_command("merge", [&] {
        for (const auto& d : dirs) parts.push_back(result_dir(d).read_merge_input());
    });
    const bool allow_mismatch = vm["allow-mismatch"].as<bool>();
    const std::vector<part_mismatch> mismatches = merge_mismatches(parts);
    if (!mismatches.empty() && !allow_mismatch)
        throw usage_error("merge: the parts are not one run (each compared with " + parts.front().name +
                          "): " + mismatches_text(mismatches) +
                          ". Merge the shards or repeats of one run, or pass --allow-mismatch to merge them anyway");
    if (!mismatches.empty())
        std::cerr << "openloop merge: merging parts of different runs (--allow-mismatch): " << mismatches_text(mismatches)
                  << "\n";
    for (const std::string& name : unchecked_parts(parts))
        std::cerr << "openloop merge: " << name << " has no run.json: cannot tell whether it is the same run\n";
    const merged_result merged = merge_results(parts, allow_mismatch);
    const result_dir merged_dir(out);
    merged_dir.write_merged(merged);
    try_write_report_html(merged_dir);
    const run_result& result = merged.result;
    if (vm["json"].as<bool>()) {
        std::cout << naming_command("merge", [&] { return merged_dir.read(result_file::summary_json); });
    } else {
        std::cout << "merged " << parts.size() << " runs into " << out.string() << "/";
        if (const auto& spread = merged.summary.at("merged").at("start_spread_ms"); spread.is_number())
            std::cout << " (their starts " << fmt_ms(spread.to_number<double>()) << " ms apart)";
        std::cout << "\n" << format_table(result);
    }
    return result.validity.valid ? 0 : 3;
}

}  // namespace openloop
