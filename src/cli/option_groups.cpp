#include "openloop/cli/option_groups.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/cli/rag_options.hpp"
#include "openloop/cli/session_options.hpp"
#include "openloop/cli/endpoint_options.hpp"
#include "openloop/cli/signal_options.hpp"
#include "openloop/cli/trace_options.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/results/headline.hpp"
#include "openloop/load/calibration.hpp"
#include "openloop/load/shard.hpp"
#include "openloop/load/trace.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/base/clock.hpp"
#include "openloop/run/start_clock.hpp"
#include "openloop/wire/connector.hpp"
#include "openloop/wire/target.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include <unistd.h>

namespace openloop {

namespace po = boost::program_options;

namespace {

std::chrono::milliseconds parse_ms(const po::variables_map& vm, const char* name) {
    return std::chrono::milliseconds(
        static_cast<std::int64_t>(parse_duration_ms(vm[name].as<std::string>(), std::string("--") + name)));
}

// RFC 9110: a header name is one token.
bool token_char(unsigned char c) {
    return std::isalnum(c) || std::string_view("!#$%&'*+-.^_`|~").find(static_cast<char>(c)) != std::string_view::npos;
}

// A header value may hold visible characters, blanks and tabs; a CR, LF or
// other control character would end the header line and inject another.
bool field_value_ok(std::string_view v) {
    for (unsigned char c : v)
        if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
    return true;
}

// text with control characters spelled \xNN, for a message.
std::string printable(std::string_view text) {
    std::string out;
    for (unsigned char c : text) {
        if (c >= 0x20 && c != 0x7f) {
            out.push_back(static_cast<char>(c));
        } else {
            constexpr char hex[] = "0123456789abcdef";
            out.append("\\x").push_back(hex[c >> 4]);
            out.push_back(hex[c & 15]);
        }
    }
    return out;
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

po::options_description target_options() {
    po::options_description target("Target", help_width, help_width / 2);
    target.add_options()
        ("target", po::value<std::string>()->default_value("sim:cpu-small"),
         "server to load: the API base URL (http(s)://HOST:PORT[/v1]; /v1 is assumed when no path is given), "
         "or sim:PRESET to start the built-in simulator (h100-8b, cpu-small, firehose) for the run")
        ("model", po::value<std::string>(), "model name; default: the first id that GET /v1/models lists")
        ("header", po::value<std::vector<std::string>>()->composing(), "extra request header 'Name: value' (repeatable)")
        ("api-key-env", po::value<std::string>()->default_value("OPENAI_API_KEY"),
         "environment variable holding the API key, sent as a Bearer token; the key is never printed or written")
        ("ca-file", po::value<std::string>(), "PEM file of CA certificates to verify the server with")
        ("insecure", po::bool_switch(), "do not verify the server certificate or host name (prints a warning)")
        ("request-id-prefix", po::value<std::string>()->default_value("openloop-"), "x-request-id prefix; the request index follows")
        ("sim-arg", po::value<std::vector<std::string>>()->composing(),
         "argument passed to the simulator of a sim: target, e.g. --sim-arg=--fault-500=0.01 (repeatable)");
    return target;
}

po::options_description load_options() {
    po::options_description load("Load", help_width, help_width / 2);
    load.add_options()
        ("arrival", po::value<std::string>()->default_value("poisson"), "inter-arrival distribution: constant, poisson or gamma")
        ("rate", po::value<double>()->default_value(1.0), "offered request rate, requests/s (open loop); with --trace, "
                                                          "the replay's mean rate, its shape kept (speed = rate / the "
                                                          "selection's mean rate)")
        ("burstiness", po::value<double>()->default_value(1.0), "gamma shape: 1 = Poisson, < 1 burstier, > 1 smoother (CV^2 = 1/B)")
        ("rate-profile", po::value<std::string>(), "stepped/ramped rates instead of --rate: 'RATE:DURATION' steps and "
                                                   "'FROM-TO:DURATION' ramps (a bare number is seconds; inf: for ever), "
                                                   "e.g. 2:60,2-8:2m")
        ("seed", po::value<std::uint64_t>()->default_value(0), "seed for arrivals, prompts and lengths")
        ("duration", po::value<std::string>(), "measured window (after warm-up), e.g. 60s, 10m; default 60s when "
                                               "neither --duration nor --num-requests is given")
        ("num-requests", po::value<std::uint64_t>(), "measured requests to send (after warm-up)")
        ("warmup", po::value<std::string>()->default_value("0"), "sent before the measured window and excluded from "
                                                                 "statistics: a time (10s) or a request count (20)")
        ("max-inflight", po::value<std::size_t>()->default_value(10000), "safety cap on requests in flight; arrivals "
                                                                         "over it are refused, counted and reported")
        ("max-concurrency", po::value<std::size_t>(), "open loop with at most N requests in flight (vLLM's "
                                                      "--max-concurrency): arrivals past N wait client-side in "
                                                      "arrival order and go as requests end; each wait is reported "
                                                      "as queue time, and latency still counts from the arrival")
        ("concurrency", po::value<std::string>(), "closed loop instead: N workers, each sending its next request when "
                                                  "the last ends (sweep: a list, e.g. 1,2,4,8,16,32)")
        ("shard", po::value<std::string>(), "I/N: this process is shard I of N of one run (0 <= I < N): every "
                                            "shard walks the same global schedule (same --seed, --rate, bounds, "
                                            "trace) and sends the requests whose global index is I mod N, so N "
                                            "processes together send exactly what one would; --rate, "
                                            "--num-requests and --warmup are the whole run's. Start them together "
                                            "with --start-at, then `openloop merge` their results")
        ("start-at", po::value<std::string>(), "start the schedule at this wall-clock instant: RFC 3339 "
                                               "(2026-12-03T10:40:00Z), @UNIX_SECONDS or +30s from now; shards given "
                                               "the same instant line their schedules up (hosts' clocks NTP-synced)")
        ("start-tolerance", po::value<std::string>()->default_value("100ms"),
         "a run ready later than --start-at by more than this is INVALID: its schedule no longer lines up");
    return load;
}

po::options_description workload_options() {
    po::options_description work("Workload", help_width, help_width / 2);
    work.add_options()
        ("input-len", po::value<std::string>()->default_value("512"), "prompt tokens: N, uniform:MIN:MAX, normal:MEAN:SD, "
                                                                      "lognormal:MEDIAN:SIGMA (optional :MIN:MAX clip)")
        ("output-len", po::value<std::string>()->default_value("128"), "max_tokens per request, same syntax")
        ("prefix-len", po::value<int>()->default_value(0), "tokens of shared prefix inside each prompt")
        ("prefix-groups", po::value<int>()->default_value(1), "distinct shared prefixes (requests cycle through them)")
        ("prompts", po::value<std::string>(), "JSONL file, one {\"prompt\": \"...\"} per line")
        ("sharegpt", po::value<std::string>(), "ShareGPT JSON file (first human turn as prompt, reply length as max_tokens)")
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
    return work;
}

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
        ("headline", po::value<std::string>(), "the metric a scenario is judged by, printed first: ttft (chat), itl "
                                               "(code completion), tpot, e2e, session (an agent chain) or throughput (batch)")
        ("log-chunk-gaps", po::bool_switch(), "requests.jsonl also lists each request's gaps between content "
                                              "chunks (chunk_gaps_ms), for per-request ITL analysis")
        ("progress", po::value<std::string>()->default_value("auto"), "live progress line on stderr: auto (when a terminal), on, off")
        ("lag-bound", po::value<std::string>()->default_value("1ms"), "the run is INVALID when schedule lag p99 exceeds this")
        ("max-error-rate", po::value<std::string>()->default_value("1%"),
         "the run fails (INVALID, exit 4) when more of its requests failed than this, e.g. 1%, 0.05 or 100%; "
         "requests openloop cancelled itself (grace or drain ran out) do not count")
        ("goodput", po::value<std::vector<std::string>>()->composing(),
         "per-request SLO for goodput, METRIC=LIMIT with METRIC ttft, tpot, itl or e2e and LIMIT a duration, e.g. "
         "ttft=500ms; ttft=0.5 is 0.5 s, as everywhere (repeatable)");

    return results;
}

void fill_target(const po::variables_map& vm, run_command& cmd) {
    auto& o = cmd.options;
    cmd.target = vm["target"].as<std::string>();
    if (cmd.target.rfind("sim:", 0) != 0) {
        try {
            parse_target_url(cmd.target);
        } catch (const std::invalid_argument& e) {
            throw usage_error(e.what());
        }
    }
    o.target_label = cmd.target;
    if (vm.count("model")) o.model = vm["model"].as<std::string>();
    if (vm.count("header")) {
        for (const auto& h : vm["header"].as<std::vector<std::string>>()) {
            const auto colon = h.find(':');
            if (colon == std::string::npos || colon == 0)
                throw usage_error("--header must look like 'Name: value'");
            const std::string name = h.substr(0, colon);
            for (unsigned char c : name)
                if (!token_char(c))
                    throw usage_error("--header '" + printable(name) + "': a header name is letters, digits and "
                                      "!#$%&'*+-.^_`|~ only");
            std::string value = h.substr(colon + 1);
            value.erase(0, value.find_first_not_of(' '));
            // The value may be a secret: the message names only the header.
            if (!field_value_ok(value))
                throw usage_error("--header " + name + ": the value holds a CR, LF or other control character");
            o.headers.emplace_back(name, value);
        }
    }
    o.api_key_env = vm["api-key-env"].as<std::string>();
    if (const char* key = std::getenv(o.api_key_env.c_str()); key && !field_value_ok(key))
        throw usage_error("--api-key-env " + o.api_key_env + ": the key holds a CR, LF or other control character");
    if (vm.count("ca-file")) {
        o.ca_file = vm["ca-file"].as<std::string>();
        // Read now, as every other input file is: refused before a simulator
        // starts or the server is asked anything, and whatever the scheme.
        boost::asio::ssl::context ctx(boost::asio::ssl::context::tls_client);
        load_ca_file(ctx, o.ca_file);
    }
    o.insecure = vm["insecure"].as<bool>();
    o.request_id_prefix = vm["request-id-prefix"].as<std::string>();
    if (!field_value_ok(o.request_id_prefix))
        // Named, never echoed: like any header value it may be meant to stay private.
        throw usage_error("--request-id-prefix: a header value may not hold a CR, LF or other control character");
    if (vm.count("sim-arg")) cmd.sim_args = vm["sim-arg"].as<std::vector<std::string>>();
}

void fill_load(const po::variables_map& vm, run_command& cmd, bool for_sweep) {
    auto& o = cmd.options;
    cmd.seed = vm["seed"].as<std::uint64_t>();
    try {
        o.arrival.kind = parse_arrival_kind(vm["arrival"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--arrival: ") + e.what());
    }
    try {
        if (vm.count("shard")) o.shard = parse_shard(vm["shard"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(std::string("--shard: ") + e.what());
    }
    try {
        if (vm.count("start-at")) o.start_at_ns = parse_start_at(vm["start-at"].as<std::string>(), wall_now_ns());
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    o.start_tolerance_s = parse_duration_s(vm["start-tolerance"].as<std::string>(), "--start-tolerance");
    if (o.shard.sharded() && o.start_at_ns < 0 && !for_sweep)
        std::fprintf(stderr, "openloop: --shard without --start-at: this shard's schedule starts when it is ready; "
                             "give every shard the same --start-at to line them up\n");
    if (vm.count("rate-profile")) {
        try {
            o.arrival.profile = parse_rate_profile(vm["rate-profile"].as<std::string>());
        } catch (const std::invalid_argument& e) {
            throw usage_error(std::string("--rate-profile: ") + e.what());
        }
    }
    o.arrival.rate = vm["rate"].as<double>();
    o.arrival.burstiness = vm["burstiness"].as<double>();
    o.arrival.seed = cmd.seed;
    if (!(o.arrival.rate > 0) || !std::isfinite(o.arrival.rate)) throw usage_error("--rate must be a positive number of requests/s");
    if (!(o.arrival.burstiness > 0)) throw usage_error("--burstiness must be positive");
    if (vm.count("duration")) {
        o.duration_s = parse_duration_s(vm["duration"].as<std::string>(), "--duration");
        if (o.duration_s <= 0) throw usage_error("--duration must be positive, e.g. 60s");
    }
    if (vm.count("num-requests")) {
        o.num_requests = vm["num-requests"].as<std::uint64_t>();
        if (o.num_requests < 1) throw usage_error("--num-requests must be at least 1");
    }
    const std::string warm = vm["warmup"].as<std::string>();
    if (!warm.empty() && warm.find_first_not_of("0123456789") == std::string::npos) {
        o.warmup_requests = static_cast<std::uint64_t>(parse_integer(warm, "--warmup"));
    } else {
        o.warmup_s = parse_duration_s(warm, "--warmup");
    }
    o.max_inflight = vm["max-inflight"].as<std::size_t>();
    if (o.max_inflight < 1) throw usage_error("--max-inflight must be at least 1");
    if (vm.count("max-concurrency")) {
        o.max_concurrency = vm["max-concurrency"].as<std::size_t>();
        if (o.max_concurrency < 1) throw usage_error("--max-concurrency must be at least 1");
        if (for_sweep)
            throw usage_error("--max-concurrency: a sweep's stages find the knee from the queue the server builds, "
                              "which a client-side cap would hide; use it with run or soak");
        if (vm.count("concurrency"))
            throw usage_error("--max-concurrency caps an open loop; --concurrency is a closed loop: give one of them");
        if (o.max_concurrency > o.max_inflight)
            throw usage_error("--max-concurrency " + std::to_string(o.max_concurrency) + " is above --max-inflight " +
                              std::to_string(o.max_inflight) + ", which bounds those in flight and waiting together");
    }
    if (vm.count("concurrency") && !for_sweep) {
        const auto n = parse_integer(vm["concurrency"].as<std::string>(), "--concurrency");
        if (n < 1 || n > std::numeric_limits<int>::max()) throw usage_error("--concurrency must be a whole number >= 1");
        o.concurrency = static_cast<int>(n);
    }
}

void fill_workload(const po::variables_map& vm, run_command& cmd) {
    auto& o = cmd.options;
    auto& w = o.workload;
    w.input_len = length_dist::parse(vm["input-len"].as<std::string>(), "--input-len");
    w.output_len = length_dist::parse(vm["output-len"].as<std::string>(), "--output-len");
    w.prefix_len = vm["prefix-len"].as<int>();
    w.prefix_groups = vm["prefix-groups"].as<int>();
    if (w.prefix_len < 0) throw usage_error("--prefix-len must not be negative");
    if (w.prefix_groups < 1) throw usage_error("--prefix-groups must be at least 1");
    if (vm.count("prompts")) w.prompts_file = vm["prompts"].as<std::string>();
    if (vm.count("sharegpt")) w.sharegpt_file = vm["sharegpt"].as<std::string>();
    fill_trace(vm, cmd);
    w.seed = cmd.seed;
    if ((!w.prompts_file.empty()) + (!w.sharegpt_file.empty()) + (!w.trace_file.empty()) > 1)
        throw usage_error("give at most one of --prompts, --sharegpt and --trace");
    // A trace sent once ends by itself; anything else needs a bound.
    if (o.duration_s == 0 && o.num_requests == 0 && (w.trace_file.empty() || w.trace_loop)) o.duration_s = 60;
    o.ignore_eos = vm["ignore-eos"].as<bool>();
    o.temperature = vm["temperature"].as<double>();
    if (o.temperature < 0) throw usage_error("--temperature must not be negative");
    o.sampling_seed = vm["sampling-seed"].as<std::int64_t>();
    if (o.sampling_seed < -1) throw usage_error("--sampling-seed must be -1 (send none) or a seed >= 0");
    o.continuous_usage = !vm["no-continuous-usage"].as<bool>();
    if (vm.count("extra-body")) {
        boost::json::error_code ec;
        const auto extra = boost::json::parse(vm["extra-body"].as<std::string>(), ec);
        if (ec) throw usage_error("--extra-body is not JSON (" + ec.message() + "); give an object, e.g. '{\"top_p\": 0.9}'");
        if (!extra.is_object()) throw usage_error("--extra-body must be a JSON object, e.g. '{\"top_p\": 0.9}'");
        // request_body marks its own fields with this and cuts them out of the serialized template.
        if (boost::json::serialize(extra).find("@@openloop-") != std::string::npos)
            throw usage_error("--extra-body may not contain \"@@openloop-\": openloop marks its own fields with it");
        o.extra_body = extra.as_object();
    }
    try {
        o.tokenizer = parse_tokenizer(vm["tokenizer"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    o.vocab_size = vm["vocab-size"].as<std::int64_t>();
    if (o.vocab_size != 0 && o.vocab_size < 256)
        throw usage_error("--vocab-size must be 0 (read it from the server) or at least 256");
    const std::string cache = vm.count("tokenizer-cache") ? vm["tokenizer-cache"].as<std::string>() : default_cache_dir();
    o.tokenizer_cache = cache == "off" ? "" : cache;
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
            else if (metric == "tpot") o.slo.tpot_ms = ms;
            else if (metric == "itl") o.slo.itl_ms = ms;
            else if (metric == "e2e" || metric == "e2el") o.slo.e2e_ms = ms;
            else throw usage_error("--goodput: unknown metric '" + metric + "' (ttft, tpot, itl, e2e)");
        }
    }
    o.config = config_json(vm);
}

}  // namespace

std::string default_out_dir(const char* kind) {
    const std::time_t now = std::time(nullptr);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d-%H%M%S", std::localtime(&now));
    return std::string("results/") + kind + "-" + stamp;
}

void fill_run_options(const po::variables_map& vm, run_command& cmd, bool for_sweep) {
    try {
        fill_target(vm, cmd);
        fill_load(vm, cmd, for_sweep);
        fill_workload(vm, cmd);
        fill_limits(vm, cmd.options);
        fill_results(vm, cmd);
        fill_endpoint(vm, cmd.options);
        fill_sessions(vm, cmd, for_sweep);
        fill_rag(vm, cmd.options);
        cmd.options.watch = fill_signals(vm);
        if (vm.count("metrics-listen")) cmd.options.metrics_listen = vm["metrics-listen"].as<std::string>();
    } catch (const input_error& e) {
        throw usage_error(e.what());
    }
}

po::options_description run_option_groups() {
    po::options_description all;
    all.add(target_options()).add(endpoint_options()).add(load_options()).add(workload_options()).add(rag_options());
    all.add(session_options());
    all.add(trace_options()).add(limits_options());
    all.add(results_options());
    all.add(signal_options());
    return all;
}

}  // namespace openloop
