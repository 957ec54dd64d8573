#include "openloop/cli/sweep_command.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/base/result_files.hpp"
#include "openloop/cli/option_groups.hpp"
#include "openloop/cli/scenario.hpp"
#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/target.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/cli/endpoint_options.hpp"
#include "openloop/results/slo.hpp"
#include "openloop/results/sweep_json.hpp"
#include "openloop/results/sweep_table.hpp"
#include "openloop/results/sweep_threshold.hpp"
#include "openloop/run/prepare.hpp"

#include <boost/program_options.hpp>

#include <cmath>
#include <iostream>
#include <sstream>

namespace openloop {

namespace po = boost::program_options;

namespace {

po::options_description sweep_option_group() {
    po::options_description sweep("Sweep", help_width, help_width / 2);
    sweep.add_options()
        ("rates", po::value<std::string>()->default_value("auto"),
         "offered rates: a list (1,2,4,8), a geometric ladder (0.5:64:x2), an arithmetic one (1:10:+1), or auto: "
         "start at --start-rate, multiply by --factor until an SLO breaks or throughput saturates, then bisect "
         "to --precision")
        ("slo", po::value<std::vector<std::string>>()->composing(),
         "service-level objective METRIC_STAT=LIMIT, e.g. ttft_p99=1s, itl_p99=100ms, e2e_p95=10s, tpot_mean=50ms, "
         "error_rate=0.1% (repeatable); LIMIT a duration (a bare number is seconds) or, for error_rate, a fraction; "
         "goodput counts requests meeting all of them")
        ("precision", po::value<std::string>()->default_value("5%"), "automatic sweep: stop bisecting at this gap")
        ("start-rate", po::value<double>()->default_value(1.0), "automatic sweep: first rate, req/s")
        ("factor", po::value<double>()->default_value(2.0), "automatic sweep: rate multiplier while stages are good")
        ("max-rate", po::value<double>()->default_value(10000.0), "automatic sweep: never offer more, req/s")
        ("max-stages", po::value<std::size_t>()->default_value(24), "stages at most")
        ("stage-duration", po::value<std::string>()->default_value("30s"),
         "measured window per stage, at least; a stage also runs until it has --min-samples requests")
        ("stage-extension", po::value<double>()->default_value(4.0),
         "open loop: a stage also lasts at least 20 of its E2Es, then runs on, up to this many times that "
         "minimum, until its queue either grew beyond doubt or is shown not to grow by 5 % of the rate; "
         "1 = never extend (an undecided stage is flagged)")
        ("rate-block", po::value<std::uint32_t>()->default_value(50),
         "Poisson stages: exactly this many arrivals in every span of this many expected ones (Poisson "
         "bursts within a span), so a stage of a few hundred requests offers the rate it is judged at "
         "instead of one several percent off; 0 = plain Poisson")
        ("min-samples", po::value<std::uint64_t>()->default_value(0),
         "measured requests per stage, at least; 0 = enough for a bounded 95% confidence interval of the "
         "highest percentile in the SLOs (368 for p99)")
        ("cooldown", po::value<std::string>()->default_value("2s"), "pause between stages")
        ("barrier-timeout", po::value<std::string>()->default_value("10m"),
         "sharded sweep (--shard I/N, every shard with the same --start-at and --out on a shared volume): how "
         "long a shard that ended a stage waits for the others; each stage is then judged on all shards' parts "
         "merged, and the next starts together after --cooldown")
        ("abort-inflight", po::value<std::size_t>()->default_value(0),
         "abort a stage (overloaded) when more requests are in flight; 0 = 30 x rate x max(1 s, low-load E2E),\n"
         "at least 64")
        ("users-think-time", po::value<std::string>()->default_value("30s"),
         "think time between one user's requests, for the users-served estimate")
        ("threshold", po::value<std::vector<std::string>>()->composing(),
         "pass/fail on the sweep's knees (repeatable): knee>RATE, slo_knee>RATE or latency_knee>RATE in req/s; holds "
         "only when the knee's whole bracket between stages is past RATE; exit 6 when one fails");
    return sweep;
}

// Runs f; an error from a parser that does not name its flag gets the flag in front.
template <class F>
auto naming(const char* flag, F&& f) {
    try {
        return f();
    } catch (const std::invalid_argument& e) {
        const std::string message = e.what();
        throw usage_error(message.find(flag) == std::string::npos ? std::string(flag) + ": " + message : message);
    }
}

void fill_sweep_options(const po::variables_map& vm, sweep_command& cmd) {
    fill_run_options(vm, cmd.run, true);
    auto& o = cmd.options;
    o.base = cmd.run.options;
    o.rates = naming("--rates", [&] { return parse_rates(vm["rates"].as<std::string>()); });
    if (!o.base.workload.trace_file.empty() && !vm["trace-speed"].defaulted())
        throw usage_error("sweep: each stage replays the --trace at the stage's rate; --trace-speed does not apply");
    if (vm.count("slo")) o.slos = naming("--slo", [&] { return parse_slos(vm["slo"].as<std::vector<std::string>>()); });
    if (vm.count("threshold"))
        for (const auto& t : vm["threshold"].as<std::vector<std::string>>())
            cmd.thresholds.push_back(naming("--threshold", [&] { return parse_sweep_threshold(t); }));
    o.precision = naming("--precision", [&] { return parse_precision(vm["precision"].as<std::string>()); });
    if (vm.count("concurrency"))
        o.concurrency = naming("--concurrency", [&] { return parse_concurrency_list(vm["concurrency"].as<std::string>()); });
    try {
        o.stage_s = parse_duration_s(vm["stage-duration"].as<std::string>(), "--stage-duration");
        if (vm.count("duration")) o.stage_s = parse_duration_s(vm["duration"].as<std::string>(), "--duration");
        o.cooldown_s = parse_duration_s(vm["cooldown"].as<std::string>(), "--cooldown");
        o.think_time_s = parse_duration_s(vm["users-think-time"].as<std::string>(), "--users-think-time");
        o.barrier_timeout_s = parse_duration_s(vm["barrier-timeout"].as<std::string>(), "--barrier-timeout");
    } catch (const quantity_error& e) {
        throw usage_error(std::string("sweep: ") + e.what());
    }
    // Goodput counts the requests that meet every SLO: each latency SLO's limit
    // becomes a per-request threshold unless --goodput set one for that metric.
    for (const auto& slo : o.slos) {
        require_streamed(o.base, slo.metric, "--slo");
        double* threshold = slo.metric == "ttft"  ? &o.base.slo.ttft_ms
                          : slo.metric == "ttfa"  ? &o.base.slo.ttfa_ms
                          : slo.metric == "tpot"  ? &o.base.slo.tpot_ms
                          : slo.metric == "itl"   ? &o.base.slo.itl_ms
                          : slo.metric == "e2e"   ? &o.base.slo.e2e_ms
                                                  : nullptr;
        if (threshold && (*threshold < 0 || slo.limit < *threshold)) *threshold = slo.limit;
    }
    o.start_rate = vm["start-rate"].as<double>();
    o.factor = vm["factor"].as<double>();
    o.max_rate = vm["max-rate"].as<double>();
    if (!(o.start_rate > 0)) throw usage_error("sweep: --start-rate must be positive");
    if (!(o.factor > 1)) throw usage_error("sweep: --factor must be above 1");
    if (!(o.max_rate > 0)) throw usage_error("sweep: --max-rate must be positive");
    o.max_stages = vm["max-stages"].as<std::size_t>();
    if (o.max_stages < 1) throw usage_error("sweep: --max-stages must be at least 1");
    o.min_samples = vm["min-samples"].as<std::uint64_t>();
    o.abort_inflight = vm["abort-inflight"].as<std::size_t>();
    o.max_extension = vm["stage-extension"].as<double>();
    o.rate_block = vm["rate-block"].as<std::uint32_t>();
    if (o.rate_block > max_count_block)
        throw usage_error("sweep: --rate-block must be at most " + std::to_string(max_count_block) + ", got " +
                          std::to_string(o.rate_block));
    if (!(o.max_extension >= 1) || !std::isfinite(o.max_extension))
        throw usage_error("sweep: --stage-extension must be at least 1, got " + std::to_string(o.max_extension));
    // A sweep stage always warms up: its measured window must start in steady state.
    o.warmup_s = vm["warmup"].defaulted() ? 5.0 : o.base.warmup_s;
    if (o.stage_s <= 0) throw usage_error("sweep: --stage-duration must be positive");
    if (o.base.shard.sharded() && o.base.start_at_ns < 0)
        throw usage_error("sweep --shard: give every shard the same --start-at, so that their first stages start "
                          "together (the later ones start together by themselves)");
    if (o.base.shard.sharded() && !o.concurrency.empty())
        throw usage_error("sweep --shard: a --concurrency ladder is not sharded; shard an open-loop sweep (--rates)");
    if (o.base.shard.sharded() && !vm.count("out"))
        throw usage_error("sweep --shard: --out DIR is needed: the directory every shard shares (a volume all mount)");
    if (!vm.count("out")) o.base.out_dir = default_out_dir("sweep");
    o.out_dir = o.base.out_dir;
    cmd.json = cmd.run.json;
}

}  // namespace

int sweep_main(const std::vector<std::string>& args) {
    auto cmd = parse_sweep_command(args);
    if (cmd.help) {
        std::cout << cmd.help_text;
        return 0;
    }
    const resolved_target target = settle_run(cmd.run, cmd.options.base);
    const auto result = run_sweep(cmd.options, prepare_run(cmd.options.base));
    if (cmd.json) {
        std::cout << pretty_json(to_json(result.report)) << "\n";
    } else {
        std::cout << "\n" << sweep_markdown(result.report);
        if (!cmd.options.out_dir.empty())
            std::cout << "\nresults: " << cmd.options.out_dir << "/ (sweep.json, sweep.md, sweep.csv, stage-*/)\n"
                      << "report:  " << cmd.options.out_dir << "/" << result_file::report_html
                      << " (open it in a browser)\n";
    }
    if (result.interrupted) return 130;
    linger_live_metrics(cmd.options.base);
    if (!result.shards_lost.empty()) {
        std::cerr << "openloop: " << result.shards_lost << "; the report holds the stages before it\n";
        return 3;
    }
    if (!result.stopped_early.empty()) {
        // Last, so it is what the user reads: the sweep measured nothing but refusals.
        std::cerr << "openloop: the sweep stopped at its first stage that failed fast: " << result.stopped_early << "\n";
        return 3;
    }
    bool failed = false;
    const boost::json::object sweep = to_json(result.report);
    for (const auto& t : cmd.thresholds) {
        if (const auto why = sweep_threshold_failure(t, sweep)) {
            std::cerr << "openloop: threshold failed: " << *why << "\n";
            failed = true;
        }
    }
    return failed ? 6 : 0;
}

sweep_command parse_sweep_command(const std::vector<std::string>& args) {
    po::options_description help("General", help_width, help_width / 2);
    help.add_options()("help,h", "show this help");
    po::options_description everything;
    everything.add(help).add(sweep_option_group()).add(run_option_groups());
    const auto parsed = parse_with_scenario(args, everything, "sweep");
    const auto& vm = parsed.vm;
    sweep_command cmd;
    if (vm.count("help")) {
        std::ostringstream os;
        os << "Usage: openloop sweep [SCENARIO.ini] [options]\n\n"
              "Finds the knee. Each stage is a complete open-loop run (warm-up, then a measured window long enough\n"
              "for its p99 to have a bounded confidence interval) at one offered rate, with the same workload and\n"
              "seed family. Reports the SLO knee (highest rate at which every SLO holds), the saturation knee\n"
              "(where the stage's requests in flight keep growing through its measured window; without that\n"
              "series, where achieved throughput stops following the offered rate: achieved/offered < 0.95), and what\n"
              "the knee means in requests in flight and users served. Writes sweep.json, sweep.md, sweep.csv and\n"
              "one directory per stage; tools/plot-sweep turns sweep.json into PNG/SVG plots. A stage whose\n"
              "requests fail beyond --max-error-rate is marked 'errors' with its error classes, never 'saturated':\n"
              "failed requests were answered, and a server that fails is not a server at capacity.\n"
              "With --concurrency 1,2,4,... it runs the closed-loop ladder instead.\n"
              "A stage that fails fast (its first 8 requests all refused alike: see openloop run --help) ends the\n"
              "sweep there with the server's message; exit status 3, as when a sharded sweep's shard does not finish\n"
              "a stage within --barrier-timeout. A --threshold on a knee that fails: exit 6.\n"
              "Ctrl-C or SIGTERM ends the sweep (exit 130): the stage it cut is reported as cut, its figures shown and\n"
              "never judged, and the knees are judged on the stages before it.\n\n"
           << value_syntax_help << everything;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    with_file_lines(parsed, [&] { fill_sweep_options(vm, cmd); });
    return cmd;
}


}  // namespace openloop
