#include "openloop/cli/result_options.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/cli/option_groups.hpp"
#include "openloop/cli/target_options.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/results/headline.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <unistd.h>

namespace openloop {

namespace po = boost::program_options;

namespace {

std::chrono::milliseconds parse_ms(const po::variables_map& vm, const char* name) {
    return std::chrono::milliseconds(
        static_cast<std::int64_t>(parse_duration_ms(vm[name].as<std::string>(), std::string("--") + name)));
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

}  // namespace

po::options_description limits_options() {
    po::options_description limits("Timeouts and limits", help_width, help_width / 2);
    limits.add_options()
        ("connect-timeout", po::value<std::string>()->default_value("10s"), "TCP connect + TLS handshake")
        ("first-token-timeout", po::value<std::string>()->default_value("0"), "request sent -> first content chunk; 0 = none")
        ("idle-timeout", po::value<std::string>()->default_value("60s"),
         "longest silence between two chunks of a stream (timeout_idle); 0 = none")
        ("timeout", po::value<std::string>()->default_value("0"),
         "whole request; 0 = none. The calls before the schedule (GET /v1/models without --model, the tokenize "
         "probes of --tokenizer auto/server) wait at most 10 s each, or this when shorter, connect included; once "
         "one goes unanswered the rest are not tried")
        ("max-body", po::value<std::size_t>()->default_value(256u << 20), "response body limit, bytes")
        ("grace", po::value<std::string>()->default_value("10s"), "after Ctrl-C, how long in-flight requests may finish")
        ("drain", po::value<std::string>()->default_value("auto"),
         "after the last send, how long in-flight requests may finish before they are cancelled (cancelled_at_end); "
         "auto: 3 x the longest E2E of the requests ended so far (the first request's age if none ended), "
         "within 10 s .. 300 s. A sweep's stages default to max(30 s, 4 x warm-up)")
        ("spare-connections", po::value<std::size_t>()->default_value(4),
         "idle connections kept open ahead of need, so connects stay off the send path. Each holds a server "
         "thread on thread-per-connection servers (llama.cpp's llama-server has slots + 2 HTTP threads: raise its "
         "--threads-http above slots + spares)")
        ("keep-alive-idle", po::value<std::string>()->default_value("4s"),
         "never write on a pooled connection idle longer than this, and replace idle spares before it: servers "
         "close idle keep-alive connections (uvicorn, i.e. vLLM and SGLang, and llama.cpp after 5 s; nginx 75 s); "
         "0 = no limit");
    return limits;
}

po::options_description results_options() {
    po::options_description results("Results", help_width, help_width / 2);
    results.add_options()
        ("out", po::value<std::string>(), "directory for summary.json, requests.jsonl and timeseries.csv "
                                          "(a sessions run also sessions.jsonl; default results/run-TIMESTAMP; "
                                          "'-' writes no files)")
        ("json", po::bool_switch(), "print summary.json to stdout instead of the table")
        ("headline", po::value<std::string>(), "the metric a scenario is judged by, printed first: ttft (chat), ttfa "
                                               "(a thinking model's first answer token), itl (code completion), tpot, e2e, "
                                               "session (an agent chain) or throughput (batch)")
        ("log-chunk-gaps", po::bool_switch(), "requests.jsonl also lists each request's gaps between content "
                                              "chunks (chunk_gaps_ms), for per-request ITL analysis")
        ("progress", po::value<std::string>()->default_value("auto"), "live progress line on stderr: auto (when a terminal), on, off")
        ("lag-bound", po::value<std::string>()->default_value("1ms"), "the run is INVALID when schedule lag p99 exceeds this")
        ("max-error-rate", po::value<std::string>()->default_value("1%"),
         "the run fails (INVALID, exit 4) when more of its requests failed than this, e.g. 1%, 0.05 or 100%; "
         "requests openloop cancelled itself (grace or drain ran out) do not count")
        ("goodput", po::value<std::vector<std::string>>()->composing(),
         "per-request SLO for goodput, METRIC=LIMIT with METRIC ttft, ttfa (time to first answer token: a thinking "
         "model's first token that is not thinking), tpot, itl or e2e and LIMIT a duration, e.g. "
         "ttft=500ms; ttft=0.5 is 0.5 s, as everywhere (repeatable)");

    return results;
}

void fill_limits(const po::variables_map& vm, run_options& o) {
    o.connect_timeout = parse_ms(vm, "connect-timeout");
    o.first_token_timeout = parse_ms(vm, "first-token-timeout");
    o.idle_timeout = parse_ms(vm, "idle-timeout");
    o.total_timeout = parse_ms(vm, "timeout");
    o.max_body = vm["max-body"].as<std::size_t>();
    if (o.max_body < 1) throw usage_error("--max-body must be at least 1 byte");
    o.grace_s = parse_duration_s(vm["grace"].as<std::string>(), "--grace");
    if (const std::string drain = vm["drain"].as<std::string>(); drain != "auto") {
        o.drain_s = parse_duration_s(drain, "--drain");
        if (o.drain_s <= 0) throw usage_error("--drain must be positive, or auto: a bounded run always ends");
    }
    o.keep_alive_idle = parse_ms(vm, "keep-alive-idle");
    o.spare_connections = vm["spare-connections"].as<std::size_t>();
}

void fill_results(const po::variables_map& vm, run_command& cmd) {
    auto& o = cmd.options;
    o.max_error_rate = parse_fraction(vm["max-error-rate"].as<std::string>(), "--max-error-rate");

    const std::string out = vm.count("out") ? vm["out"].as<std::string>() : default_out_dir("run");
    o.out_dir = out == "-" ? "" : out;
    cmd.json = vm["json"].as<bool>();
    if (vm.count("headline")) {
        o.headline = vm["headline"].as<std::string>();
        check_headline(o.headline);
    }
    o.log_chunk_gaps = vm["log-chunk-gaps"].as<bool>();
    const std::string progress = vm["progress"].as<std::string>();
    if (progress == "auto") o.progress = isatty(STDERR_FILENO) && !cmd.json;
    else if (progress == "on") o.progress = true;
    else if (progress == "off") o.progress = false;
    else throw usage_error("--progress must be auto, on or off");
    o.lag_bound_ms = parse_duration_ms(vm["lag-bound"].as<std::string>(), "--lag-bound");
    if (o.lag_bound_ms <= 0) throw usage_error("--lag-bound must be positive: with 0 no run is valid");
    if (vm.count("goodput")) {
        for (const auto& item : vm["goodput"].as<std::vector<std::string>>()) {
            const auto eq = item.find('=');
            if (eq == std::string::npos) throw usage_error("--goodput takes METRIC=LIMIT, e.g. ttft=500ms");
            const std::string metric = item.substr(0, eq);
            const double ms = parse_duration_ms(item.substr(eq + 1), "--goodput " + metric);
            if (ms <= 0) throw usage_error("--goodput " + metric + ": the limit must be positive");
            if (metric == "ttft") o.slo.ttft_ms = ms;
            else if (metric == "ttfa") o.slo.ttfa_ms = ms;
            else if (metric == "tpot") o.slo.tpot_ms = ms;
            else if (metric == "itl") o.slo.itl_ms = ms;
            else if (metric == "e2e" || metric == "e2el") o.slo.e2e_ms = ms;
            else throw usage_error("--goodput: unknown metric '" + metric + "' (ttft, ttfa, tpot, itl, e2e)");
        }
    }
    o.config = config_json(vm);
}

}  // namespace openloop
