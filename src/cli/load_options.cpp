#include "openloop/cli/load_options.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/quantity.hpp"
#include "openloop/cli/trace_options.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/load/calibration.hpp"
#include "openloop/load/shard.hpp"
#include "openloop/load/text_file.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/start_clock.hpp"
#include "openloop/run/stop_signals.hpp"

#include <boost/json.hpp>
#include <boost/program_options.hpp>

#include <cmath>
#include <filesystem>
#include <cstdio>
#include <limits>
#include <stdexcept>
#include <string>

namespace openloop {

namespace po = boost::program_options;

namespace {

// Far more than any model's context: a file past it is not a system prompt.
constexpr std::uintmax_t most_system_prompt_bytes = 1u << 20;

// --system-prompt TEXT or @FILE.
std::string system_prompt_text(const std::string& value) {
    if (value.starts_with('@')) {
        const std::string file = value.substr(1);
        std::error_code ec;
        if (!std::filesystem::is_regular_file(file, ec))
            throw usage_error("--system-prompt " + value + ": " + file + " is not a readable file");
        if (std::filesystem::file_size(file, ec) > most_system_prompt_bytes)
            throw usage_error("--system-prompt " + value + ": " + file + " is over 1 MiB, more than a system prompt");
    }
    std::string text = value.starts_with('@') ? read_text_file(value.substr(1), "--system-prompt") : value;
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw usage_error("--system-prompt " + value + ": the system prompt is empty");
    // request_body marks its own fields with this and cuts them out of the serialized template.
    if (text.find("@@openloop-") != std::string::npos)
        throw usage_error("--system-prompt " + value +
                          " may not contain \"@@openloop-\": openloop marks its own fields with it");
    return text;
}

}  // namespace

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
         "how a length in tokens becomes a prompt, so that usage.prompt_tokens equals --input-len: "
         "server (calibrated against the server's tokenize endpoint, chat template included: vLLM, SGLang, "
         "llama.cpp, TGI); hf:PATH (a Hugging Face tokenizer.json or its model directory: Llama 2/3, Qwen, "
         "DeepSeek, Gemma, Mistral, GPT-2, BERT...) or tiktoken:FILE (cl100k_base, o200k_base), the chat "
         "template's tokens learned from two max_tokens-1 requests' usage; usage (no file: every word's cost "
         "measured from the usage of 138 small requests before the run, cached); ids (token-id prompts, exact; "
         "--endpoint completions); sentencepiece:FILE (a SentencePiece tokenizer.model; no chat template); words "
         "(one word per token). auto tries, in order: the server's tokenize endpoint, --tokenizer-file or a "
         "--model that is a local directory with a tokenizer.json, the server's usage counts, and words with a "
         "warning. The summary reports intended vs the server's counts")
        ("tokenizer-file", po::value<std::string>(),
         "--tokenizer auto's local tokenizer when the server offers no tokenize endpoint: a tokenizer.json, its "
         "model directory, or a .tiktoken file")
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
        ("extra-body", po::value<std::string>(), "JSON object merged into every request body")
        ("system-prompt", po::value<std::string>(),
         "a system message sent first in every chat request and in every turn of a session: TEXT, or @FILE for "
         "a file's text. The same for every request, as production prompts carry one (the prefix cache's first "
         "win); its tokens count in --input-len as the chat template's do, so no prompt is shorter than they "
         "are (a shorter length asked is named before the run)");
    return work;
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
    if (vm.count("system-prompt")) o.system_prompt = system_prompt_text(vm["system-prompt"].as<std::string>());
    try {
        o.tokenizer = parse_tokenizer(vm["tokenizer"].as<std::string>());
    } catch (const std::invalid_argument& e) {
        throw usage_error(e.what());
    }
    if (vm.count("tokenizer-file")) {
        if (o.tokenizer.type != tokenizer_choice::kind::automatic)
            throw usage_error("--tokenizer-file goes with --tokenizer auto (hf:PATH and tiktoken:FILE name their own file)");
        o.tokenizer.model_file = vm["tokenizer-file"].as<std::string>();
    }
    // Once, before any server is asked anything: a bad file is a usage error, and sweep stages share it.
    // A vocabulary of millions takes seconds: the first Ctrl-C meanwhile stops it and ends the run.
    if (const std::string file = local_tokenizer_file(o.tokenizer, o.model); !file.empty()) {
        const auto load = [&](const std::stop_token& stop) {
            try {
                o.loaded_tokenizer = load_local_tokenizer(o.tokenizer, o.model, stop);
            } catch (const std::runtime_error& e) {
                throw usage_error(e.what());
            }
        };
        o.interrupted = !run_interruptible(load, "loading tokenizer " + file);
    }
    o.vocab_size = vm["vocab-size"].as<std::int64_t>();
    if (o.vocab_size != 0 && o.vocab_size < 256)
        throw usage_error("--vocab-size must be 0 (read it from the server) or at least 256");
    const std::string cache = vm.count("tokenizer-cache") ? vm["tokenizer-cache"].as<std::string>() : default_cache_dir();
    o.tokenizer_cache = cache == "off" ? "" : cache;
}

}  // namespace openloop
