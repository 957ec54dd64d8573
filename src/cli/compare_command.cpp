#include "openloop/cli/compare_command.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/cli/dir_arguments.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/results/compare_html.hpp"
#include "openloop/results/compare.hpp"
#include "openloop/results/sweep_compare.hpp"
#include "openloop/run/result_dir.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <algorithm>
#include <fstream>
#include <iostream>
#include <optional>

namespace openloop {

namespace po = boost::program_options;
namespace json = boost::json;

namespace {

constexpr const char* compare_usage =
    "Usage: openloop compare BASE NEW [--fail-on GATE]... [--allow-mismatch] [--json] [--out FILE]\n\n"
    "Two runs (result directories) side by side: TTFT, TPOT and E2E (mean, p50, p90, p99), error rate, request\n"
    "and output throughput, each with base, new, absolute and relative change, a 99 % confidence interval of\n"
    "the change and a verdict: better, worse or within noise. Latency and error-rate intervals come from a\n"
    "bootstrap over each run's requests.jsonl (request by request, 1,000 resamples, seeded: the same two runs\n"
    "always give the same answer); throughput intervals from the completion counts (Poisson). A change counts\n"
    "when its interval clears ±--min-change (1 %) of the base value: smaller ones are within noise whatever\n"
    "their interval (two runs of one seeded schedule differ by hundredths of a percent). Prints Markdown;\n"
    "--json prints the same as JSON, --out FILE also writes it there (Markdown, or JSON with --json).\n"
    "--html FILE writes the comparison as one self-contained page for a browser: the verdict, a forest plot of\n"
    "every metric's relative change with its interval, then the table.\n\n"
    "Gates for release pipelines, repeatable: --fail-on 'ttft_p99>+10%' fails when TTFT p99 rose significantly\n"
    "and by more than 10 %; --fail-on 'request_throughput<-5%' when throughput fell significantly by more than\n"
    "5 %. A change within noise never fails a gate.\n\n"
    "Before the table compare says what differs between the two runs' run.json. Another target, model or\n"
    "calibrated tokenizer is the server under test: compare's use. Another endpoint, lengths, prompts, rate,\n"
    "arrival, sampling or tokenizer flag is another workload: every verdict then weighs the load as well as the\n"
    "server, so gates are refused (exit 2, after the table) unless --allow-mismatch, which the JSON records.\n"
    "Two sweeps are checked alike, from the target and flags their sweep.json records.\n\n"
    "Two sweeps (directories with sweep.json) compare knee against knee: a knee lies between the last stage\n"
    "before the break and the first past it, and a change counts when the two brackets do not overlap; gates\n"
    "name knee (saturation), slo_knee or latency_knee, e.g. --fail-on 'knee<-5%'.\n\n"
    "Exit status: 0 no gate failed; 10 + i when the i-th --fail-on (counting from 0) is the first that failed\n"
    "(each failure is printed); 2 bad usage, an unreadable run, or gates refused across different workloads.\n\n";

std::vector<gate> parse_gates(const std::vector<std::string>& texts, const std::vector<std::string>& metrics) {
    std::vector<gate> gates;
    for (const auto& g : texts) {
        try {
            gates.push_back(parse_gate(g, metrics));
        } catch (const std::invalid_argument& e) {
            throw usage_error(std::string("compare: ") + e.what());
        }
    }
    return gates;
}

// Prints the comparison (and writes it to out, if named), then each gate that
// failed; the exit status: 10 + the first failed gate's index, or 0.
int finish(const std::string& text, const std::string& out, const std::vector<std::optional<std::string>>& failures) {
    std::cout << text;
    if (!out.empty()) {
        std::ofstream file(out, std::ios::binary);
        file << text;
        if (!file.flush()) throw usage_error("compare: cannot write " + out);
    }
    int status = 0;
    for (std::size_t i = 0; i < failures.size(); ++i) {
        if (!failures[i]) continue;
        std::cerr << "openloop compare: gate failed: " << *failures[i] << "\n";
        if (status == 0) status = 10 + static_cast<int>(std::min<std::size_t>(i, 100));
    }
    return status;
}

// Gates judge the server only when both runs had one workload: across
// workloads they are refused (after the comparison is printed), unless allowed.
void refuse_gates_across_workloads(const run_match& match, const std::vector<gate>& gates, bool allow_mismatch,
                                   const std::string& text, const std::string& out) {
    if (gates.empty() || !match.workloads_differ() || allow_mismatch) return;
    finish(text, out, {});
    std::vector<run_difference> workload;
    for (const run_difference& d : match.differences)
        if (d.workload) workload.push_back(d);
    throw usage_error("compare: gates refused: the workloads differ (" + differences_text(workload) +
                      "); compare runs of one workload, or pass --allow-mismatch to judge the gates anyway");
}

// A result file's JSON object; throws input_error "PATH: not JSON (why)".
json::object load_json(const result_dir& dir, std::string_view name) {
    boost::system::error_code ec;
    json::value v = json::parse(dir.read(name), ec);
    if (ec || !v.is_object()) throw input_error(dir.file(name).string() + ": not JSON (" + ec.message() + ")");
    return std::move(v.get_object());
}

json::object load_sweep(const std::string& name) {
    return naming_command("compare", [&] { return load_json(result_dir(name), result_file::sweep_json); });
}

// Two sweeps, knee against knee (results/sweep_compare.hpp).
int compare_sweep_dirs(const std::vector<std::string>& runs, const std::vector<std::string>& gate_texts, bool as_json,
                       const std::string& out, bool allow_mismatch) {
    const std::vector<gate> gates = parse_gates(gate_texts, compared_knee_names());
    std::vector<knee_change> changes;
    const json::object base = load_sweep(runs[0]), now = load_sweep(runs[1]);
    try {
        changes = compare_sweeps(base, now);
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("compare: ") + e.what());
    }
    const run_match match = match_sweeps(base, now, runs[0], runs[1]);
    const std::string text = as_json
                                 ? pretty_json(sweep_compare_json(runs[0], runs[1], changes, match, allow_mismatch)) + "\n"
                                 : sweep_compare_markdown(runs[0], runs[1], changes, match, allow_mismatch);
    refuse_gates_across_workloads(match, gates, allow_mismatch, text, out);
    std::vector<std::optional<std::string>> failures;
    for (const auto& g : gates) failures.push_back(knee_gate_failure(g, changes));
    return finish(text, out, failures);
}

compared_run load_run(const result_dir& dir) {
    dir.check_run();
    compared_run r;
    r.name = dir.path().string();
    const rebuilt_stats rebuilt = rebuild_stats(dir.read(result_file::requests_jsonl), &r.requests);
    r.duration_s = rebuilt.stats.duration_s();
    for (const model_stats& m : rebuilt.stats.by_model) r.models.push_back(m.name);  // a mixed run's, for per-model rows
    if (std::optional<run_context> context = dir.run_json()) r.context = std::move(*context);
    // A finished (or merged) run's own window is the one its throughput was reported over.
    if (dir.has(result_file::summary_json)) {
        const json::object summary = load_json(dir, result_file::summary_json);
        if (const json::value* d = summary.if_contains("duration"); d && d->is_number())
            r.duration_s = d->to_number<double>();
    }
    return r;
}

// Throws usage_error "compare: ..." naming the file missing or not openloop's.
compared_run load(const std::string& name) {
    return naming_command("compare", [&] { return load_run(result_dir(name)); });
}

}  // namespace

int compare_main(const std::vector<std::string>& args) {
    po::options_description opts("Options", help_width, help_width / 2);
    opts.add_options()("help,h", "show this help")(
        "fail-on", po::value<std::vector<std::string>>()->composing(),
        "a gate: METRIC>+P% or METRIC<-P% (repeatable), e.g. ttft_p99>+10%; one model's of mixed runs: "
        "ttft_p99{model=sql-lora}>+10%")("json", po::bool_switch(),
                                                                             "print JSON instead of Markdown")(
        "out", po::value<std::string>(), "also write the comparison to this file")(
        "html", po::value<std::string>(), "also write the comparison as a page for a browser to this file (two runs)")(
        "resamples", po::value<unsigned>()->default_value(1000), "bootstrap resamples (at least 100)")(
        "min-change", po::value<std::string>()->default_value("1%"), "the least relative change that counts, e.g. 2% or 0.02")(
        "allow-mismatch", po::bool_switch(), "judge the gates even when the two runs' workloads differ");
    const po::variables_map vm = parse_dirs_command(args, opts, -1, "compare");
    if (vm.count("help")) {
        std::cout << compare_usage << opts;
        return 0;
    }
    const auto runs = given_dirs(vm);
    if (runs.size() != 2) throw usage_error("compare: name two runs: openloop compare BASE NEW");
    const auto gate_texts =
        vm.count("fail-on") ? vm["fail-on"].as<std::vector<std::string>>() : std::vector<std::string>{};
    const bool sweep0 = result_dir(runs[0]).is_sweep(), sweep1 = result_dir(runs[1]).is_sweep();
    if (sweep0 != sweep1)
        throw usage_error("compare: " + runs[sweep0 ? 0 : 1] + " is a sweep and " + runs[sweep0 ? 1 : 0] +
                          " is not: compare two runs or two sweeps");
    if (sweep0 && vm.count("html"))
        throw usage_error("compare: --html draws two runs' comparison; two sweeps compare knee against knee in "
                          "Markdown or --json, and each sweep's report.html draws its own curves");
    if (sweep0)
        return compare_sweep_dirs(runs, gate_texts, vm["json"].as<bool>(), vm.count("out") ? vm["out"].as<std::string>() : "",
                                  vm["allow-mismatch"].as<bool>());
    const std::vector<gate> gates = parse_gates(gate_texts, compared_metric_names());
    compare_options options;
    options.resamples = vm["resamples"].as<unsigned>();
    if (options.resamples < 100) throw usage_error("compare: --resamples must be at least 100");
    options.min_change = parse_fraction(vm["min-change"].as<std::string>(), "--min-change");
    if (options.min_change >= 1) throw usage_error("compare: --min-change must be under 100%, e.g. 1%");
    options.allow_mismatch = vm["allow-mismatch"].as<bool>();

    const compared_run base = load(runs[0]), now = load(runs[1]);
    const std::vector<metric_change> changes = compare_runs(base, now, options);
    const std::string text = vm["json"].as<bool>() ? pretty_json(compare_json(base, now, changes, options)) + "\n"
                                                   : compare_markdown(base, now, changes, options);
    const std::string out = vm.count("out") ? vm["out"].as<std::string>() : "";
    refuse_gates_across_workloads(match_runs(base, now), gates, options.allow_mismatch, text, out);
    std::vector<std::optional<std::string>> failures;
    const std::vector<model_changes> models = compare_models(base, now, options);  // for NAME{model=M} gates
    std::vector<std::string> failed;
    for (const auto& g : gates) {
        if (const auto why = gate_unjudged(g, changes, models)) std::fprintf(stderr, "openloop: compare: %s\n", why->c_str());
        failures.push_back(gate_failure(g, changes, models));
        if (failures.back()) failed.push_back(*failures.back());
    }
    if (vm.count("html")) {
        const std::string html = vm["html"].as<std::string>();
        std::ofstream file(html, std::ios::binary);
        file << compare_report_html(compare_json(base, now, changes, options), failed);
        if (!file.flush()) throw usage_error("compare: cannot write " + html);
    }
    return finish(text, out, failures);
}

}  // namespace openloop
