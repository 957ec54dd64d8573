#include "openloop/cli/cli.hpp"

#include "openloop/load/calibration.hpp"

#include "openloop/measure/resource_usage.hpp"
#include "openloop/cli/child_process.hpp"
#include "openloop/measure/json_text.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/sweep_json.hpp"
#include "openloop/results/sweep_table.hpp"
#include "openloop/results/table.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <charconv>
#include <ctime>
#include <optional>

#include <cmath>
#include <fstream>
#include <cstdio>
#include <iostream>
#include <sstream>

#include <unistd.h>

namespace openloop {

namespace po = boost::program_options;

namespace {

constexpr const char* top_usage = R"(openloop - open-loop load generator for OpenAI-compatible LLM inference servers

Usage: openloop <command> [options]

Commands:
  sweep    find the knee: open-loop stages at rising rates, SLO and saturation knees, capacity report
  run      benchmark a server on an open-loop arrival schedule (or closed loop with --concurrency)
  sim      run the built-in inference-engine simulator (an OpenAI-compatible server)
  help     show this text; `openloop <command> --help` shows a command's options

Options:
  --version  print the version
)";

std::vector<std::string> strings(int argc, char** argv, int from) {
    return std::vector<std::string>(argv + from, argv + argc);
}

}  // namespace

namespace {

std::chrono::milliseconds parse_ms(const po::variables_map& vm, const char* name) {
    return std::chrono::milliseconds(
        static_cast<std::int64_t>(parse_duration_s(vm[name].as<std::string>(), std::string("--") + name) * 1000));
}

bool secret_header(std::string name) {
    for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const char* s : {"authorization", "key", "token", "secret", "cookie", "password"})
        if (name.find(s) != std::string::npos) return true;
    return false;
}

// Every option as given, for summary.json; secret header values never leave.
boost::json::object config_json(const po::variables_map& vm) {
    boost::json::object out;
    for (const auto& [name, v] : vm) {
        if (name == "help") continue;
        const auto& any = v.value();
        if (const auto* s = boost::any_cast<std::string>(&any)) {
            out[name] = *s;
        } else if (const auto* d = boost::any_cast<double>(&any)) {
            out[name] = *d;
        } else if (const auto* i = boost::any_cast<int>(&any)) {
            out[name] = *i;
        } else if (const auto* u = boost::any_cast<std::uint64_t>(&any)) {
            out[name] = *u;
        } else if (const auto* z = boost::any_cast<std::size_t>(&any)) {
            out[name] = *z;
        } else if (const auto* b = boost::any_cast<bool>(&any)) {
            out[name] = *b;
        } else if (const auto* list = boost::any_cast<std::vector<std::string>>(&any)) {
            boost::json::array a;
            for (const auto& item : *list) {
                const auto colon = item.find(':');
                if (name == "header" && colon != std::string::npos && secret_header(item.substr(0, colon))) {
                    a.push_back(boost::json::string(item.substr(0, colon) + ": <redacted>"));
                } else {
                    a.push_back(boost::json::string(item));
                }
            }
            out[name] = std::move(a);
        } else if (any.empty()) {
            out[name] = true;  // a switch
        }
    }
    return out;
}

std::string default_out_dir() {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string("results/run-") + stamp;
}

// Options shared by `run` and `sweep`.
po::options_description run_option_groups() {
    po::options_description target("Target", help_width, help_width / 2);
    target.add_options()
        ("target", po::value<std::string>()->default_value("sim:cpu-small"),
         "server to load: the API base URL (http(s)://HOST:PORT[/v1]; /v1 is assumed when no path is given), "
         "or sim:PRESET to start the built-in simulator (h100-8b, cpu-small, firehose) for the run")
        ("endpoint", po::value<std::string>()->default_value("chat"), "chat (/v1/chat/completions) or completions (/v1/completions)")
        ("model", po::value<std::string>(), "model name; default: the first id that GET /v1/models lists")
        ("header", po::value<std::vector<std::string>>()->composing(), "extra request header 'Name: value' (repeatable)")
        ("api-key-env", po::value<std::string>()->default_value("OPENAI_API_KEY"),
         "environment variable holding the API key, sent as a Bearer token; the key is never printed or written")
        ("ca-file", po::value<std::string>(), "PEM file of CA certificates to verify the server with")
        ("insecure", po::bool_switch(), "do not verify the server certificate or host name (prints a warning)")
        ("request-id-prefix", po::value<std::string>()->default_value("openloop-"), "x-request-id prefix; the request index follows")
        ("sim-arg", po::value<std::vector<std::string>>()->composing(),
         "argument passed to the simulator of a sim: target, e.g. --sim-arg=--fault-500=0.01 (repeatable)");

    po::options_description load("Load", help_width, help_width / 2);
    load.add_options()
        ("arrival", po::value<std::string>()->default_value("poisson"), "inter-arrival distribution: constant, poisson or gamma")
        ("rate", po::value<double>()->default_value(1.0), "offered request rate, requests/s (open loop)")
        ("burstiness", po::value<double>()->default_value(1.0), "gamma shape: 1 = Poisson, < 1 burstier, > 1 smoother (CV^2 = 1/B)")
        ("rate-profile", po::value<std::string>(), "stepped/ramped rates instead of --rate: 'RATE:SECONDS' steps and "
                                                   "'FROM-TO:SECONDS' ramps, e.g. 2:60,2-8:120")
        ("seed", po::value<std::uint64_t>()->default_value(0), "seed for arrivals, prompts and lengths")
        ("duration", po::value<std::string>(), "measured window (after warm-up), e.g. 60s, 10m; default 60s when "
                                               "neither --duration nor --num-requests is given")
        ("num-requests", po::value<std::uint64_t>(), "measured requests to send (after warm-up)")
        ("warmup", po::value<std::string>()->default_value("0"), "sent before the measured window and excluded from "
                                                                 "statistics: a time (10s) or a request count (20)")
        ("max-inflight", po::value<std::size_t>()->default_value(10000), "safety cap on requests in flight; arrivals "
                                                                         "over it are refused, counted and reported")
        ("concurrency", po::value<std::string>(), "closed loop instead: N workers, each sending its next request when "
                                                  "the last ends (sweep: a list, e.g. 1,2,4,8,16,32)")
        ("shard", po::value<std::string>(), "I/N: run the I-th of N independent sub-schedules (each at rate/N)");

    po::options_description work("Workload", help_width, help_width / 2);
    work.add_options()
        ("input-len", po::value<std::string>()->default_value("512"), "prompt tokens: N, uniform:MIN:MAX, normal:MEAN:SD, "
                                                                      "lognormal:MEDIAN:SIGMA (optional :MIN:MAX clip)")
        ("output-len", po::value<std::string>()->default_value("128"), "max_tokens per request, same syntax")
        ("prefix-len", po::value<int>()->default_value(0), "tokens of shared prefix inside each prompt")
        ("prefix-groups", po::value<int>()->default_value(1), "distinct shared prefixes (requests cycle through them)")
        ("prompts", po::value<std::string>(), "JSONL file, one {\"prompt\": \"...\"} per line")
        ("sharegpt", po::value<std::string>(), "ShareGPT JSON file (first human turn as prompt, reply length as max_tokens)")
        ("trace", po::value<std::string>(), "replay a trace: Mooncake JSONL, Azure CSV, BurstGPT CSV or openloop requests.jsonl "
                                            "(timestamps, lengths, shared prefixes)")
        ("trace-format", po::value<std::string>()->default_value("auto"), "trace format, or auto to detect it")
        ("trace-speed", po::value<double>()->default_value(1.0), "replay speed factor (2 = twice as fast)")
        ("trace-skip-bad-rows", po::bool_switch(), "skip malformed trace rows (counted) instead of stopping")
        ("tokenizer", po::value<std::string>()->default_value("auto"),
         "how a length in tokens becomes a prompt: server (calibrated against the server's own tokenize endpoint, "
         "chat template included, so usage.prompt_tokens equals --input-len; vLLM, SGLang, llama.cpp, TGI), "
         "ids (token-id prompts, exact; --endpoint completions), sentencepiece:FILE (a local SentencePiece "
         "tokenizer.model: Llama 1/2, Mistral, Gemma, T5; no chat template), words (one word per token), or auto "
         "(server where offered, else words). The summary reports intended vs the server's counts")
        ("vocab-size", po::value<std::int64_t>()->default_value(0),
         "--tokenizer ids: the model's vocabulary size; 0 reads it from GET /v1/models (llama.cpp lists it)")
        ("tokenizer-cache", po::value<std::string>(),
         "directory caching calibrations per model (default $OPENLOOP_CACHE_DIR, else ~/.cache/openloop); off: none")
        ("ignore-eos", po::bool_switch(), "ask the server to generate exactly max_tokens (vLLM/SGLang ignore_eos; "
         "min_tokens = max_tokens is sent too, for servers that honour only that)")
        ("temperature", po::value<double>()->default_value(0.0), "sampling temperature")
        ("sampling-seed", po::value<std::int64_t>()->default_value(0), "\"seed\" sent with each request; -1 sends none")
        ("no-continuous-usage", po::bool_switch(), "do not ask for usage on every chunk (stream_options.continuous_usage_stats); "
                                "ITL is then chunk-based unless the server sends it anyway")
        ("extra-body", po::value<std::string>(), "JSON object merged into every request body");

    po::options_description limits("Timeouts and limits", help_width, help_width / 2);
    limits.add_options()
        ("connect-timeout", po::value<std::string>()->default_value("10s"), "TCP connect + TLS handshake")
        ("first-token-timeout", po::value<std::string>()->default_value("0"), "request sent -> first content chunk; 0 = none")
        ("idle-timeout", po::value<std::string>()->default_value("0"), "longest silence between chunks; 0 = none")
        ("timeout", po::value<std::string>()->default_value("0"), "whole request; 0 = none")
        ("max-body", po::value<std::size_t>()->default_value(256u << 20), "response body limit, bytes")
        ("grace", po::value<std::string>()->default_value("10s"), "after Ctrl-C, how long in-flight requests may finish")
        ("spare-connections", po::value<std::size_t>()->default_value(4),
         "idle connections kept open ahead of need, so connects stay off the send path. Each holds a server "
         "thread on thread-per-connection servers (llama.cpp's llama-server has slots + 2 HTTP threads: raise its "
         "--threads-http above slots + spares)")
        ("keep-alive-idle", po::value<std::string>()->default_value("4s"),
         "never write on a pooled connection idle longer than this, and replace idle spares before it: servers "
         "close idle keep-alive connections (uvicorn, i.e. vLLM and SGLang, and llama.cpp after 5 s; nginx 75 s); "
         "0 = no limit");

    po::options_description results("Results", help_width, help_width / 2);
    results.add_options()
        ("out", po::value<std::string>(), "directory for summary.json, requests.jsonl and timeseries.csv "
                                          "(default results/run-TIMESTAMP; '-' writes no files)")
        ("json", po::bool_switch(), "print summary.json to stdout instead of the table")
        ("progress", po::value<std::string>()->default_value("auto"), "live progress line on stderr: auto (when a terminal), on, off")
        ("lag-bound", po::value<std::string>()->default_value("1ms"), "the run is INVALID when schedule lag p99 exceeds this")
        ("max-error-rate", po::value<std::string>()->default_value("1%"),
         "the run fails (INVALID, exit 4) when more of its requests failed than this, e.g. 1%, 0.05 or 100%; "
         "requests openloop cancelled itself (grace or drain ran out) do not count")
        ("goodput", po::value<std::vector<std::string>>()->composing(),
         "per-request SLO for goodput, METRIC=LIMIT with METRIC ttft, tpot, itl or e2e, e.g. ttft=500ms (repeatable)");

    po::options_description all;
    all.add(target).add(load).add(work).add(limits).add(results);
    return all;
}

void fill_run_options(const po::variables_map& vm, run_command& cmd, bool sweep = false) {
    auto& o = cmd.options;
    cmd.target = vm["target"].as<std::string>();
    o.target_label = cmd.target;
    o.endpoint = vm["endpoint"].as<std::string>();
    if (o.endpoint != "chat" && o.endpoint != "completions")
        throw usage_error("--endpoint must be chat or completions, got '" + o.endpoint + "'");
    if (vm.count("model")) o.model = vm["model"].as<std::string>();
    if (vm.count("header")) {
        for (const auto& h : vm["header"].as<std::vector<std::string>>()) {
            const auto colon = h.find(':');
            if (colon == std::string::npos || colon == 0)
                throw usage_error("--header must look like 'Name: value'");
            std::string value = h.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            o.headers.emplace_back(h.substr(0, colon), value);
        }
    }
    o.api_key_env = vm["api-key-env"].as<std::string>();
    if (vm.count("ca-file")) o.ca_file = vm["ca-file"].as<std::string>();
    o.insecure = vm["insecure"].as<bool>();
    o.request_id_prefix = vm["request-id-prefix"].as<std::string>();
    if (vm.count("sim-arg")) cmd.sim_args = vm["sim-arg"].as<std::vector<std::string>>();

    cmd.seed = vm["seed"].as<std::uint64_t>();
    try {
        o.arrival.kind = parse_arrival_kind(vm["arrival"].as<std::string>());
        if (vm.count("rate-profile")) o.arrival.profile = parse_rate_profile(vm["rate-profile"].as<std::string>());
        if (vm.count("shard")) o.arrival.shard = parse_shard(vm["shard"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    o.arrival.rate = vm["rate"].as<double>();
    o.arrival.burstiness = vm["burstiness"].as<double>();
    o.arrival.seed = cmd.seed;
    if (!(o.arrival.rate > 0) || !std::isfinite(o.arrival.rate)) throw usage_error("--rate must be a positive number of requests/s");
    if (!(o.arrival.burstiness > 0)) throw usage_error("--burstiness must be positive");
    if (vm.count("duration")) o.duration_s = parse_duration_s(vm["duration"].as<std::string>(), "--duration");
    if (vm.count("num-requests")) o.num_requests = vm["num-requests"].as<std::uint64_t>();
    const std::string warm = vm["warmup"].as<std::string>();
    if (!warm.empty() && warm.find_first_not_of("0123456789") == std::string::npos) {
        o.warmup_requests = std::stoull(warm);
    } else {
        o.warmup_s = parse_duration_s(warm, "--warmup");
    }
    o.max_inflight = vm["max-inflight"].as<std::size_t>();
    if (o.max_inflight < 1) throw usage_error("--max-inflight must be at least 1");
    if (vm.count("concurrency") && !sweep) {
        const auto text = vm["concurrency"].as<std::string>();
        std::size_t used = 0;
        try {
            o.concurrency = std::stoi(text, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != text.size() || o.concurrency < 1) throw usage_error("--concurrency must be a whole number >= 1");
    }

    auto& w = o.workload;
    w.input_len = vm["input-len"].as<std::string>();
    w.output_len = vm["output-len"].as<std::string>();
    w.prefix_len = vm["prefix-len"].as<int>();
    w.prefix_groups = vm["prefix-groups"].as<int>();
    if (vm.count("prompts")) w.prompts_file = vm["prompts"].as<std::string>();
    if (vm.count("sharegpt")) w.sharegpt_file = vm["sharegpt"].as<std::string>();
    if (vm.count("trace")) w.trace_file = vm["trace"].as<std::string>();
    w.trace_format = vm["trace-format"].as<std::string>();
    w.trace_speed = vm["trace-speed"].as<double>();
    w.trace_skip_bad_rows = vm["trace-skip-bad-rows"].as<bool>();
    w.seed = cmd.seed;
    if ((!w.prompts_file.empty()) + (!w.sharegpt_file.empty()) + (!w.trace_file.empty()) > 1)
        throw usage_error("give at most one of --prompts, --sharegpt and --trace");
    if (o.duration_s == 0 && o.num_requests == 0 && w.trace_file.empty()) o.duration_s = 60;
    o.ignore_eos = vm["ignore-eos"].as<bool>();
    o.temperature = vm["temperature"].as<double>();
    o.sampling_seed = vm["sampling-seed"].as<std::int64_t>();
    o.continuous_usage = !vm["no-continuous-usage"].as<bool>();
    if (vm.count("extra-body")) o.extra_body = vm["extra-body"].as<std::string>();

    o.connect_timeout = parse_ms(vm, "connect-timeout");
    o.first_token_timeout = parse_ms(vm, "first-token-timeout");
    o.idle_timeout = parse_ms(vm, "idle-timeout");
    o.total_timeout = parse_ms(vm, "timeout");
    o.max_body = vm["max-body"].as<std::size_t>();
    o.grace_s = parse_duration_s(vm["grace"].as<std::string>(), "--grace");
    o.keep_alive_idle = parse_ms(vm, "keep-alive-idle");
    o.spare_connections = vm["spare-connections"].as<std::size_t>();
    try {
        o.tokenizer = parse_tokenizer(vm["tokenizer"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    o.vocab_size = vm["vocab-size"].as<std::int64_t>();
    if (o.vocab_size < 0) throw usage_error("--vocab-size must not be negative");
    const std::string cache = vm.count("tokenizer-cache") ? vm["tokenizer-cache"].as<std::string>() : default_cache_dir();
    o.tokenizer_cache = cache == "off" ? "" : cache;
    o.max_error_rate = parse_fraction(vm["max-error-rate"].as<std::string>(), "--max-error-rate");

    const std::string out = vm.count("out") ? vm["out"].as<std::string>() : default_out_dir();
    o.out_dir = out == "-" ? "" : out;
    cmd.json = vm["json"].as<bool>();
    const std::string progress = vm["progress"].as<std::string>();
    if (progress == "auto") o.progress = isatty(STDERR_FILENO) && !cmd.json;
    else if (progress == "on") o.progress = true;
    else if (progress == "off") o.progress = false;
    else throw usage_error("--progress must be auto, on or off");
    o.lag_bound_ms = parse_duration_s(vm["lag-bound"].as<std::string>(), "--lag-bound") * 1000;
    if (vm.count("goodput")) {
        for (const auto& item : vm["goodput"].as<std::vector<std::string>>()) {
            const auto eq = item.find('=');
            if (eq == std::string::npos) throw usage_error("--goodput takes METRIC=LIMIT, e.g. ttft=500ms");
            const std::string metric = item.substr(0, eq);
            const double ms = parse_duration_s(item.substr(eq + 1), "--goodput " + metric) * 1000;
            if (metric == "ttft") o.slo.ttft_ms = ms;
            else if (metric == "tpot") o.slo.tpot_ms = ms;
            else if (metric == "itl") o.slo.itl_ms = ms;
            else if (metric == "e2e" || metric == "e2el") o.slo.e2e_ms = ms;
            else throw usage_error("--goodput: unknown metric '" + metric + "' (ttft, tpot, itl, e2e)");
        }
    }
    o.config = config_json(vm);
}

// Parses command line then scenario file (the first stored value wins, so the command line does).
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

// A sim:PRESET target runs the simulator as a child for as long as we need it.
struct resolved_target {
    std::optional<sim_child> sim;
    std::string url;
};

resolved_target resolve_target(const run_command& cmd) {
    resolved_target r;
    if (cmd.target.rfind("sim:", 0) != 0) {
        r.url = cmd.target;
        return r;
    }
    const std::string preset = cmd.target.substr(4);
    if (!find_preset(preset)) {
        std::string names;
        for (const auto& n : preset_names()) names += (names.empty() ? "" : ", ") + n;
        throw usage_error("--target " + cmd.target + ": unknown simulator preset (choose one of: " + names + ")");
    }
    std::vector<std::string> args{"--preset", preset, "--seed", std::to_string(cmd.seed)};
    args.insert(args.end(), cmd.sim_args.begin(), cmd.sim_args.end());
    r.sim.emplace(start_sim(self_executable(), args));
    r.url = r.sim->url;
    return r;
}

int run_main(const std::vector<std::string>& args) {
    auto cmd = parse_run_command(args);
    if (cmd.help) {
        std::cout << cmd.help_text;
        return 0;
    }
    if (cmd.options.insecure)
        std::cerr << "openloop: warning: --insecure: the server's certificate and host name are NOT verified\n";
    auto target = resolve_target(cmd);
    cmd.options.url = target.url;
    raise_fd_limit();
    const auto outcome = run_load(cmd.options);
    if (cmd.json) {
        std::cout << boost::json::serialize(summary_json(outcome.result)) << "\n";
    } else {
        std::cout << format_table(outcome.result);
        if (!cmd.options.out_dir.empty())
            std::cout << "\nresults: " << cmd.options.out_dir << "/ (summary.json, requests.jsonl, timeseries.csv)\n";
    }
    if (outcome.interrupted) return 130;
    if (outcome.result.validity.too_many_errors) return 4;
    return outcome.result.validity.valid ? 0 : 3;
}

po::options_description sweep_option_group() {
    po::options_description sweep("Sweep", help_width, help_width / 2);
    sweep.add_options()
        ("rates", po::value<std::string>()->default_value("auto"),
         "offered rates: a list (1,2,4,8), a geometric ladder (0.5:64:x2), an arithmetic one (1:10:+1), or auto: "
         "start at --start-rate, multiply by --factor until an SLO breaks or throughput saturates, then bisect "
         "to --precision")
        ("slo", po::value<std::vector<std::string>>()->composing(),
         "service-level objective METRIC_STAT=LIMIT, e.g. ttft_p99=1s, itl_p99=100ms, e2e_p95=10s, tpot_mean=50ms, "
         "error_rate=0.1% (repeatable); goodput counts requests meeting all of them")
        ("precision", po::value<std::string>()->default_value("5%"), "automatic sweep: stop bisecting at this gap")
        ("start-rate", po::value<double>()->default_value(1.0), "automatic sweep: first rate, req/s")
        ("factor", po::value<double>()->default_value(2.0), "automatic sweep: rate multiplier while stages are good")
        ("max-rate", po::value<double>()->default_value(10000.0), "automatic sweep: never offer more, req/s")
        ("max-stages", po::value<std::size_t>()->default_value(24), "stages at most")
        ("stage-duration", po::value<std::string>()->default_value("30s"),
         "measured window per stage, at least; a stage also runs until it has --min-samples requests")
        ("min-samples", po::value<std::uint64_t>()->default_value(0),
         "measured requests per stage, at least; 0 = enough for a bounded 95% confidence interval of the "
         "highest percentile in the SLOs (368 for p99)")
        ("cooldown", po::value<std::string>()->default_value("2s"), "pause between stages")
        ("abort-inflight", po::value<std::size_t>()->default_value(0),
         "abort a stage (overloaded) when more requests are in flight; 0 = 10 x rate x max(1 s, low-load E2E)")
        ("users-think-time", po::value<std::string>()->default_value("30s"),
         "think time between one user's requests, for the users-served estimate");
    return sweep;
}

int sweep_main(const std::vector<std::string>& args) {
    auto cmd = parse_sweep_command(args);
    if (cmd.help) {
        std::cout << cmd.help_text;
        return 0;
    }
    if (cmd.run.options.insecure)
        std::cerr << "openloop: warning: --insecure: the server's certificate and host name are NOT verified\n";
    auto target = resolve_target(cmd.run);
    cmd.options.base.url = target.url;
    raise_fd_limit();
    const auto result = run_sweep(cmd.options);
    if (cmd.json) {
        std::cout << pretty_json(to_json(result.report)) << "\n";
    } else {
        std::cout << "\n" << sweep_markdown(result.report);
        if (!cmd.options.out_dir.empty())
            std::cout << "\nresults: " << cmd.options.out_dir << "/ (sweep.json, sweep.md, sweep.csv, stage-*/)\n"
                      << "plots:   tools/plot-sweep " << cmd.options.out_dir << "/sweep.json\n";
    }
    return result.interrupted ? 130 : 0;
}

}  // namespace

sweep_command parse_sweep_command(const std::vector<std::string>& args) {
    po::options_description help("General", help_width, help_width / 2);
    help.add_options()("help,h", "show this help");
    po::options_description everything;
    everything.add(help).add(sweep_option_group()).add(run_option_groups());
    const auto vm = parse_with_scenario(args, everything, "sweep");
    sweep_command cmd;
    if (vm.count("help")) {
        std::ostringstream os;
        os << "Usage: openloop sweep [SCENARIO.ini] [options]\n\n"
              "Finds the knee. Each stage is a complete open-loop run (warm-up, then a measured window long enough\n"
              "for its p99 to have a bounded confidence interval) at one offered rate, with the same workload and\n"
              "seed family. Reports the SLO knee (highest rate at which every SLO holds), the saturation knee\n"
              "(where achieved throughput stops following the offered rate: achieved/offered < 0.95), and what\n"
              "the knee means in requests in flight and users served. Writes sweep.json, sweep.md, sweep.csv and\n"
              "one directory per stage; tools/plot-sweep turns sweep.json into PNG/SVG plots. A stage whose\n"
              "requests fail beyond --max-error-rate is marked 'errors' with its error classes, never 'saturated':\n"
              "failed requests were answered, and a server that fails is not a server at capacity.\n"
              "With --concurrency 1,2,4,... it runs the closed-loop ladder instead.\n\n"
           << everything;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    fill_run_options(vm, cmd.run, true);
    auto& o = cmd.options;
    o.base = cmd.run.options;
    try {
        o.rates = parse_rates(vm["rates"].as<std::string>());
        if (vm.count("slo")) o.slos = parse_slos(vm["slo"].as<std::vector<std::string>>());
        o.precision = parse_precision(vm["precision"].as<std::string>());
        if (vm.count("concurrency")) o.concurrency = parse_concurrency_list(vm["concurrency"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("sweep: ") + e.what());
    }
    // Goodput counts the requests that meet every SLO: each latency SLO's limit
    // becomes a per-request threshold unless --goodput set one for that metric.
    for (const auto& slo : o.slos) {
        double* threshold = slo.metric == "ttft"  ? &o.base.slo.ttft_ms
                          : slo.metric == "tpot"  ? &o.base.slo.tpot_ms
                          : slo.metric == "itl"   ? &o.base.slo.itl_ms
                          : slo.metric == "e2e"   ? &o.base.slo.e2e_ms
                                                  : nullptr;
        if (threshold && (*threshold < 0 || slo.limit < *threshold)) *threshold = slo.limit;
    }
    o.start_rate = vm["start-rate"].as<double>();
    o.factor = vm["factor"].as<double>();
    o.max_rate = vm["max-rate"].as<double>();
    if (!(o.start_rate > 0) || !(o.factor > 1) || !(o.max_rate > 0))
        throw usage_error("sweep: --start-rate and --max-rate must be positive, --factor above 1");
    o.max_stages = vm["max-stages"].as<std::size_t>();
    o.stage_s = parse_duration_s(vm["stage-duration"].as<std::string>(), "--stage-duration");
    if (vm.count("duration")) o.stage_s = parse_duration_s(vm["duration"].as<std::string>(), "--duration");
    o.min_samples = vm["min-samples"].as<std::uint64_t>();
    o.cooldown_s = parse_duration_s(vm["cooldown"].as<std::string>(), "--cooldown");
    o.abort_inflight = vm["abort-inflight"].as<std::size_t>();
    o.think_time_s = parse_duration_s(vm["users-think-time"].as<std::string>(), "--users-think-time");
    // A sweep stage always warms up: its measured window must start in steady state.
    o.warmup_s = vm["warmup"].defaulted() ? 5.0 : o.base.warmup_s;
    if (o.stage_s <= 0) throw usage_error("sweep: --stage-duration must be positive");
    if (!vm.count("out")) {
        const std::time_t now = std::time(nullptr);
        char stamp[32];
        std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
        o.base.out_dir = std::string("results/sweep-") + stamp;
    }
    o.out_dir = o.base.out_dir;
    cmd.json = cmd.run.json;
    return cmd;
}

run_command parse_run_command(const std::vector<std::string>& args) {
    const auto all = run_option_groups();
    po::options_description help("General", help_width, help_width / 2);
    help.add_options()("help,h", "show this help");
    po::options_description everything;
    everything.add(help).add(all);
    const auto vm = parse_with_scenario(args, everything, "run");
    run_command cmd;
    if (vm.count("help")) {
        std::ostringstream os;
        os << "Usage: openloop run [SCENARIO.ini] [options]\n\n"
              "Sends requests on an open-loop arrival schedule (each at its intended time, whatever is in\n"
              "flight), streams every response, and reports TTFT, TPOT, ITL, E2E latency, throughput and\n"
              "goodput. Latency clocks start at the intended send time, so a slow server cannot hide its\n"
              "queueing (no coordinated omission). A scenario file holds 'option = value' lines; the command\n"
              "line wins. Exit status: 0 valid run, 3 invalid run (reason printed first), 4 more requests\n"
              "failed than --max-error-rate allows, 130 interrupted, 2 bad usage, 1 other errors.\n\n"
           << everything;
        cmd.help = true;
        cmd.help_text = os.str();
        return cmd;
    }
    fill_run_options(vm, cmd);
    return cmd;
}

int cli_main(int argc, char** argv) {
    const std::string command = argc > 1 ? argv[1] : "help";
    try {
        if (command == "help" || command == "--help" || command == "-h") {
            std::cout << top_usage;
            return 0;
        }
        if (command == "--version") {
            std::cout << "openloop " << OPENLOOP_VERSION << "\n";
            return 0;
        }
        if (command == "run") return run_main(strings(argc, argv, 2));
        if (command == "sweep") return sweep_main(strings(argc, argv, 2));
        if (command == "sim") return sim_main(strings(argc, argv, 2));
        std::cerr << "openloop: unknown command '" << command << "'\n\n" << top_usage;
        return 2;
    } catch (const usage_error& e) {
        std::cerr << "openloop: " << e.what() << "\n";
        return 2;
    } catch (const std::exception& e) {
        std::cerr << "openloop: error: " << e.what() << "\n";
        return 1;
    }
}

}  // namespace openloop
