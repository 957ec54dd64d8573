#include "openloop/cli/merge_command.hpp"

#include "openloop/cli/result_dir.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/measure/json_text.hpp"
#include "openloop/results/merge.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <filesystem>
#include <fstream>
#include <iostream>

namespace openloop {

namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace json = boost::json;

namespace {

constexpr const char* usage_text =
    "Usage: openloop merge DIR... --out DIR [--json]\n\n"
    "Combines runs into one result: the shards of one run (started together, e.g. with --shard), or repeats of\n"
    "it. The parts' requests.jsonl are put end to end, each line tagged with \"origin\" (its directory), and the\n"
    "statistics rebuilt from them, so counts, token totals and the TTFT, TPOT, E2E, lag, connect and TTFB\n"
    "histograms are exact, as if one run had made every request. Throughput is over the time at least one part\n"
    "was running (the union of their windows, on this host's clock): shards add their rates, repeats their\n"
    "durations. ITL is not merged (no per-chunk times on disk). The verdict is the worst of the parts', with\n"
    "each part's reasons, and the merged run's own (its error rate, its lag). Writes summary.json (with\n"
    "\"merged\": the parts), requests.jsonl and run.json (the first part's) into --out.\n\n"
    "Exit status: 0 valid, 3 invalid, 2 bad usage or an unreadable part.\n\n";

// The offered rate a part's run.json records; 0 when it has none.
double offered_rate(const fs::path& dir) {
    const fs::path file = dir / "run.json";
    if (!fs::exists(file)) return 0;
    try {
        return run_context_from_json(json::parse(read_result_file(file, "merge"))).request_rate;
    } catch (const std::exception& e) {
        throw usage_error("merge: " + file.string() + ": " + e.what());
    }
}

struct part_verdict {
    bool known = false;
    bool valid = true;
    json::array reasons;
};

part_verdict verdict_of(const fs::path& dir) {
    part_verdict v;
    if (!fs::exists(dir / "summary.json")) return v;
    try {
        const json::object s = json::parse(read_result_file(dir / "summary.json", "merge")).as_object();
        const json::object& validity = s.at("validity").as_object();
        v.known = true;
        v.valid = validity.at("valid").as_bool();
        v.reasons = validity.at("reasons").as_array();
    } catch (const std::exception& e) {
        throw usage_error("merge: " + (dir / "summary.json").string() + ": not an openloop summary (" + e.what() + ")");
    }
    return v;
}

}  // namespace

int merge_main(const std::vector<std::string>& args) {
    po::options_description opts("Options", help_width, help_width / 2);
    opts.add_options()("help,h", "show this help")("out", po::value<std::string>(), "the merged result's directory")(
        "json", po::bool_switch(), "print summary.json instead of the table");
    const po::variables_map vm = parse_dirs_command(args, opts, -1, "merge");
    if (vm.count("help")) {
        std::cout << usage_text << opts;
        return 0;
    }
    const auto dirs = given_dirs(vm);
    if (dirs.empty()) throw usage_error("merge: name the runs to merge: openloop merge DIR... --out DIR");
    if (!vm.count("out")) throw usage_error("merge: --out DIR is needed: where the merged result goes");
    const fs::path out = vm["out"].as<std::string>();
    for (const auto& d : dirs)
        if (fs::weakly_canonical(d) == fs::weakly_canonical(out))
            throw usage_error("merge: --out " + out.string() + " is one of the parts; choose a new directory");

    std::vector<merge_part> parts;
    std::vector<part_verdict> verdicts;
    for (const auto& d : dirs) {
        require_request_log(d, "merge");
        parts.push_back({d, read_result_file(fs::path(d) / "requests.jsonl", "merge"), offered_rate(d)});
        verdicts.push_back(verdict_of(d));
    }
    run_context ctx;
    const fs::path first_run = fs::path(dirs.front()) / "run.json";
    if (fs::exists(first_run)) ctx = run_context_from_json(json::parse(read_result_file(first_run, "merge")));
    merged_runs merged = merge_runs(parts);
    const double window_s = static_cast<double>(merged.window_ns) / 1e9;
    if (merged.offered_rate > 0) ctx.request_rate = merged.offered_rate;
    run_result result = make_run_result(merged.rebuilt.stats, ctx);

    json::array part_rows;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        const run_stats& s = merged.parts[i].stats;
        const part_verdict& v = verdicts[i];
        if (v.known && !v.valid) {
            result.validity.valid = false;
            for (const auto& r : v.reasons)
                result.validity.reasons.push_back("part " + parts[i].name + ": " + std::string(r.as_string()));
        }
        json::object row{{"dir", parts[i].name}, {"completed", s.completed}, {"failed", s.failed},
                         {"duration", s.duration_s()}};
        row["valid"] = v.known ? json::value(v.valid) : json::value(nullptr);
        row["reasons"] = v.reasons;
        part_rows.push_back(std::move(row));
    }
    json::object summary = summary_json(result);
    summary["merged"] = json::object{{"parts", std::move(part_rows)},
                                     {"window", window_s},
                                     {"lines", merged.rebuilt.lines},
                                     {"bad_lines", merged.rebuilt.bad_lines},
                                     {"itl", "not merged: no per-chunk times on disk"}};

    fs::create_directories(out);
    {
        std::ofstream log(out / "requests.jsonl", std::ios::binary);
        log << merged.requests_jsonl;
        if (!log.flush()) throw std::runtime_error("merge: cannot write " + (out / "requests.jsonl").string());
    }
    if (fs::exists(first_run)) fs::copy_file(first_run, out / "run.json", fs::copy_options::overwrite_existing);
    write_json_file((out / "summary.json").string(), summary);
    if (vm["json"].as<bool>()) {
        std::cout << read_result_file(out / "summary.json", "merge");
    } else {
        std::cout << "merged " << parts.size() << " runs into " << out.string() << "/\n" << format_table(result);
    }
    return result.validity.valid ? 0 : 3;
}

}  // namespace openloop
