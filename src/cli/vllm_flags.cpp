#include "openloop/cli/vllm_flags.hpp"

#include "openloop/cli/usage.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

namespace openloop {

namespace json = boost::json;

namespace {

// vLLM's flags that take a list (argparse nargs): every word up to the next flag.
const std::set<std::string> list_flags = {"--goodput", "--metadata", "--header", "--lora-modules"};
// Flags without a value.
const std::set<std::string> switches = {"--save-result", "--save-detailed", "--ignore-eos", "--disable-tqdm",
                                        "--trust-remote-code", "--append-result", "--profile", "--use-beam-search",
                                        "--disable-shuffle", "--no-stream"};
// Accepted, with nothing to do in openloop.
const std::map<std::string, std::string> ignored = {
    {"--disable-tqdm", "openloop prints progress on stderr (--progress off silences it)"},
    {"--trust-remote-code", "openloop runs no model code: it reads tokenizer.json natively"},
    {"--ready-check-timeout-sec", "openloop checks the server once before the run"},
    {"--disable-shuffle", "openloop reads a dataset in file order"},
};
// vLLM's flags that openloop reads.
const std::set<std::string> known = {
    "--backend", "--endpoint", "--base-url", "--host", "--port", "--model", "--served-model-name", "--tokenizer",
    "--dataset-name", "--dataset-path", "--random-input-len", "--random-output-len", "--random-range-ratio",
    "--random-prefix-len", "--num-prompts", "--request-rate", "--burstiness", "--max-concurrency", "--seed",
    "--ignore-eos", "--goodput", "--save-result", "--result-dir", "--result-filename", "--label", "--metadata",
    "--header", "--num-warmups", "--ramp-up-strategy", "--ramp-up-start-rps", "--ramp-up-end-rps", "--temperature",
    "--request-id-prefix", "--sharegpt-output-len", "--custom-output-len", "--save-detailed",
    "--prefix-repetition-prefix-len", "--prefix-repetition-suffix-len", "--prefix-repetition-num-prefixes",
    "--prefix-repetition-output-len", "--percentile-metrics", "--metric-percentiles", "--lora-modules"};
const std::set<std::string> unsupported = {"--profile", "--use-beam-search", "--logprobs", "--append-result",
                                           "--no-stream"};

struct parsed_flags {
    std::map<std::string, std::vector<std::string>> values;
    std::vector<std::string> notes;
    bool has(const std::string& f) const { return values.count(f) > 0; }
    std::string get(const std::string& f, const std::string& fallback) const {
        const auto it = values.find(f);
        return it == values.end() || it->second.empty() ? fallback : it->second.back();
    }
};

bool is_vllm_flag(const std::string& f) {
    return known.count(f) || switches.count(f) || list_flags.count(f) || ignored.count(f) || unsupported.count(f);
}

// argparse reads an unambiguous prefix of a flag as the flag (--random-input is
// --random-input-len): the one vLLM flag that starts with f, or f itself.
std::string unabbreviated(const std::string& f, parsed_flags& p) {
    std::set<std::string> matches;
    for (const auto* names : {&known, &switches, &list_flags, &unsupported})
        for (const auto& name : *names)
            if (name.rfind(f, 0) == 0) matches.insert(name);
    for (const auto& [name, why] : ignored)
        if (name.rfind(f, 0) == 0) matches.insert(name);
    if (matches.size() != 1) return f;
    p.notes.push_back(f + ": read as " + *matches.begin() + ", as vLLM's argparse reads an abbreviation");
    return *matches.begin();
}

parsed_flags parse(const std::vector<std::string>& args, const std::function<bool(const std::string&)>& openloop_flag) {
    parsed_flags p;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string flag = args[i], inline_value;
        bool has_inline = false;
        if (flag.rfind("--", 0) != 0) throw usage_error("vLLM flags: '" + flag + "' is not a flag (each starts with --)");
        if (const auto eq = flag.find('='); eq != std::string::npos) {
            inline_value = flag.substr(eq + 1);
            flag = flag.substr(0, eq);
            has_inline = true;
        }
        if (!is_vllm_flag(flag) && !(openloop_flag && openloop_flag(flag))) flag = unabbreviated(flag, p);
        auto& slot = p.values[flag];
        if (switches.count(flag)) continue;
        if (has_inline) {
            slot.push_back(inline_value);
            continue;
        }
        if (list_flags.count(flag)) {
            while (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) slot.push_back(args[++i]);
            continue;
        }
        // Not vLLM's: an openloop run flag, with a value unless a flag follows.
        if (!is_vllm_flag(flag)) {
            if (i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0) slot.push_back(args[++i]);
            continue;
        }
        if (i + 1 >= args.size()) throw usage_error("vLLM flags: " + flag + " needs a value");
        slot.push_back(args[++i]);
    }
    return p;
}

double number(const std::string& flag, const std::string& text) {
    std::size_t used = 0;
    double v = 0;
    try {
        v = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != text.size() || text.empty()) throw usage_error("vLLM flags: " + flag + " '" + text + "' is not a number");
    return v;
}

long whole(const std::string& flag, const std::string& text) {
    const double v = number(flag, text);
    if (v < 0 || v != std::floor(v)) throw usage_error("vLLM flags: " + flag + " '" + text + "' is not a whole number >= 0");
    return static_cast<long>(v);
}

std::string text_of(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", v);
    return buf;
}

constexpr int ramp_pieces = 16;

// vLLM's ramp: request i of n asks rate(i / (n - 1)), from `from` to `to`
// linearly, or geometrically (from * (to / from)^x). Piece k covers the
// requests of [k/K, (k+1)/K] of the curve; a piece whose rate moves linearly
// in time from r0 to r1 expects d (r0 + r1) / 2 requests, which fixes its
// length d. The end rate holds after, for as long as requests remain.
std::string ramp_profile(bool exponential, double from, double to, long prompts) {
    const auto rate_at = [&](double x) { return exponential ? from * std::pow(to / from, x) : from + (to - from) * x; };
    const double per_piece = static_cast<double>(std::max(prompts, 1L)) / ramp_pieces;
    std::string profile;
    for (int k = 0; k < ramp_pieces; ++k) {
        const double r0 = rate_at(static_cast<double>(k) / ramp_pieces), r1 = rate_at(static_cast<double>(k + 1) / ramp_pieces);
        profile += text_of(r0) + "-" + text_of(r1) + ":" + text_of(2 * per_piece / (r0 + r1)) + ",";
    }
    return profile + text_of(to) + ":inf";
}

}  // namespace

bool looks_like_vllm_args(const std::vector<std::string>& args) {
    return !args.empty() && args.front().rfind("--", 0) == 0 && args.front() != "--help" && args.front() != "--version";
}

vllm_translation translate_vllm_args(const std::vector<std::string>& args, const std::string& now,
                                     const std::function<bool(const std::string&)>& openloop_flag) {
    const parsed_flags f = parse(args, openloop_flag);
    vllm_translation t;
    t.notes = f.notes;
    std::vector<std::string>& a = t.run_args;
    for (const auto& [flag, values] : f.values) {
        if (unsupported.count(flag)) throw usage_error("vLLM flags: " + flag + " is not supported by openloop");
        if (ignored.count(flag)) {
            t.notes.push_back(flag + ": " + ignored.at(flag));
            continue;
        }
    }

    // Where: vLLM's api_url is base_url + endpoint, base_url http://host:port.
    const std::string backend = f.get("--backend", "openai");
    const std::string endpoint = f.get("--endpoint", backend.find("chat") != std::string::npos ? "/v1/chat/completions"
                                                                                               : "/v1/completions");
    if (endpoint != "/v1/completions" && endpoint != "/v1/chat/completions")
        throw usage_error("vLLM flags: --endpoint " + endpoint + ": openloop sends /v1/completions or /v1/chat/completions");
    const bool chat = endpoint == "/v1/chat/completions";
    std::string base = f.get("--base-url", "http://" + f.get("--host", "127.0.0.1") + ":" + f.get("--port", "8000"));
    while (!base.empty() && base.back() == '/') base.pop_back();
    a.insert(a.end(), {"--target", base, "--endpoint", chat ? "chat" : "completions"});

    const std::string model = f.get("--model", "");
    const std::string served = f.get("--served-model-name", model);
    if (f.has("--lora-modules")) {
        // vLLM draws each request's adapter uniformly from the names (random.choice, so a name
        // given twice is drawn twice as often): an equal-weight --model mix, by request index.
        std::vector<std::pair<std::string, int>> names;
        for (std::string name : f.values.at("--lora-modules")) {
            name = name.substr(0, name.find('='));  // the serve side's NAME=PATH form names it too
            const auto it = std::find_if(names.begin(), names.end(), [&](const auto& n) { return n.first == name; });
            if (it != names.end())
                ++it->second;
            else
                names.emplace_back(name, 1);
        }
        std::string mix;
        for (const auto& [name, count] : names)
            mix += (mix.empty() ? "" : ",") + name + (count > 1 ? "=" + std::to_string(count) : "");
        if (mix.empty()) throw usage_error("vLLM flags: --lora-modules needs at least one adapter name");
        a.insert(a.end(), {"--model", mix});
        t.notes.push_back("--lora-modules: each request's adapter is drawn from its index and --seed (reproducible), "
                          "not from Python's random");
    } else if (!served.empty()) {
        a.insert(a.end(), {"--model", served});
    }
    // vLLM loads --tokenizer (else --model) locally; openloop asks the server first and keeps a
    // local directory as the fallback for a server without a tokenize endpoint.
    const std::string tokenizer = f.get("--tokenizer", model);
    std::error_code ec;
    if (!tokenizer.empty() && std::filesystem::is_regular_file(std::filesystem::path(tokenizer) / "tokenizer.json", ec))
        a.insert(a.end(), {"--tokenizer-file", tokenizer});
    else if (f.has("--tokenizer"))
        t.notes.push_back("--tokenizer " + tokenizer +
                          ": openloop counts tokens with the server's tokenize endpoint, else its usage counts (a local "
                          "model directory would be read as --tokenizer-file)");

    // What: the dataset and its lengths.
    const std::string dataset = f.get("--dataset-name", "random");
    const std::string path = f.get("--dataset-path", "");
    if (dataset == "random") {
        const long in = whole("--random-input-len", f.get("--random-input-len", "1024"));
        const long out = whole("--random-output-len", f.get("--random-output-len", "128"));
        const long prefix = whole("--random-prefix-len", f.get("--random-prefix-len", "0"));
        const double ratio = number("--random-range-ratio", f.get("--random-range-ratio", "0"));
        if (ratio < 0 || ratio >= 1) throw usage_error("vLLM flags: --random-range-ratio must be in [0, 1)");
        // vLLM draws each length uniformly from [L(1-r), L(1+r)], then puts the prefix in front.
        const auto spread = [&](long len, long plus) {
            if (ratio == 0) return std::to_string(len + plus);
            return "uniform:" + std::to_string(static_cast<long>(std::floor(len * (1 - ratio))) + plus) + ":" +
                   std::to_string(static_cast<long>(std::ceil(len * (1 + ratio))) + plus);
        };
        a.insert(a.end(), {"--input-len", spread(in, prefix), "--output-len", spread(out, 0)});
        if (prefix > 0) a.insert(a.end(), {"--prefix-len", std::to_string(prefix)});
    } else if (dataset == "prefix_repetition") {
        // A few shared prefixes, each prompt one of them plus its own suffix.
        const long prefix = whole("--prefix-repetition-prefix-len", f.get("--prefix-repetition-prefix-len", "256"));
        const long suffix = whole("--prefix-repetition-suffix-len", f.get("--prefix-repetition-suffix-len", "256"));
        const long groups = whole("--prefix-repetition-num-prefixes", f.get("--prefix-repetition-num-prefixes", "10"));
        const long out = whole("--prefix-repetition-output-len", f.get("--prefix-repetition-output-len", "128"));
        a.insert(a.end(), {"--input-len", std::to_string(prefix + suffix), "--prefix-len", std::to_string(prefix),
                           "--prefix-groups", std::to_string(groups), "--output-len", std::to_string(out)});
    } else if (dataset == "sharegpt" || dataset == "custom") {
        if (path.empty()) throw usage_error("vLLM flags: --dataset-name " + dataset + " needs --dataset-path");
        a.insert(a.end(), {dataset == "sharegpt" ? "--sharegpt" : "--prompts", path});
        const std::string fixed = f.get(dataset == "sharegpt" ? "--sharegpt-output-len" : "--custom-output-len", "");
        if (!fixed.empty()) a.insert(a.end(), {"--output-len", fixed});
    } else if (dataset == "burstgpt") {
        // vLLM takes BurstGPT's lengths and sends them at --request-rate, not at the log's times.
        if (path.empty()) throw usage_error("vLLM flags: --dataset-name burstgpt needs --dataset-path (BurstGPT's CSV)");
        a.insert(a.end(), {"--trace", path, "--trace-format", "burstgpt", "--trace-lengths-only"});
        t.notes.push_back("--dataset-name burstgpt: openloop sends the CSV's rows in file order (those with a "
                          "response), where vLLM keeps the GPT-4 rows and samples them at random; openloop's "
                          "--trace without --trace-lengths-only replays BurstGPT at its own times");
    } else {
        throw usage_error("vLLM flags: --dataset-name " + dataset +
                          " is not supported (random, prefix_repetition, sharegpt, custom and burstgpt are)");
    }

    // When: the arrival process.
    const long prompts = whole("--num-prompts", f.get("--num-prompts", "1000"));
    a.insert(a.end(), {"--num-requests", std::to_string(prompts)});
    const std::string rate = f.get("--request-rate", "inf");
    const std::string concurrency = f.get("--max-concurrency", "");
    if (f.has("--ramp-up-strategy")) {
        const std::string strategy = f.get("--ramp-up-strategy", "");
        if (strategy != "linear" && strategy != "exponential")
            throw usage_error("vLLM flags: --ramp-up-strategy " + strategy + " is not supported (linear and exponential are)");
        if (!f.has("--ramp-up-start-rps") || !f.has("--ramp-up-end-rps"))
            throw usage_error("vLLM flags: --ramp-up-strategy needs --ramp-up-start-rps and --ramp-up-end-rps");
        const double from = number("--ramp-up-start-rps", f.get("--ramp-up-start-rps", ""));
        const double to = number("--ramp-up-end-rps", f.get("--ramp-up-end-rps", ""));
        if (from < 0 || to <= 0) throw usage_error("vLLM flags: --ramp-up-start-rps must be >= 0 and --ramp-up-end-rps > 0");
        if (strategy == "exponential" && from <= 0)
            throw usage_error("vLLM flags: --ramp-up-strategy exponential needs --ramp-up-start-rps > 0");
        a.insert(a.end(), {"--rate-profile", ramp_profile(strategy == "exponential", from, to, prompts)});
        t.notes.push_back("--ramp-up-strategy " + strategy + ": vLLM sets the rate request by request; openloop follows "
                          "the same curve over the requests expected so far, in " + std::to_string(ramp_pieces) +
                          " linear pieces, then holds the end rate");
        t.result_keys["request_rate"] = "ramp-up";
    } else if (rate == "inf") {
        // All at once, at most --max-concurrency in flight: that is a closed loop of that many workers.
        const std::string workers = concurrency.empty() ? std::to_string(prompts) : concurrency;
        a.insert(a.end(), {"--concurrency", workers});
        t.notes.push_back("--request-rate inf: every request is due at once; openloop runs it as a closed loop of " +
                          workers + " workers, each sending its next request when the last ends");
        t.result_keys["request_rate"] = "inf";
    } else {
        a.insert(a.end(), {"--rate", rate});
        t.result_keys["request_rate"] = number("--request-rate", rate);
        if (!concurrency.empty()) {
            a.insert(a.end(), {"--max-concurrency", concurrency});
            t.notes.push_back("--max-concurrency " + concurrency +
                              " with a rate: arrivals past the cap wait client-side as with vLLM's semaphore; openloop "
                              "reports each wait as queue time and counts TTFT and latency from the arrival, where "
                              "vLLM starts them when the request leaves the queue");
        }
    }
    if (f.has("--burstiness")) a.insert(a.end(), {"--burstiness", f.get("--burstiness", "1")});
    if (f.has("--seed")) a.insert(a.end(), {"--seed", f.get("--seed", "0")});
    if (f.has("--ignore-eos")) a.push_back("--ignore-eos");
    if (f.has("--temperature")) a.insert(a.end(), {"--temperature", f.get("--temperature", "0")});
    if (f.has("--request-id-prefix")) a.insert(a.end(), {"--request-id-prefix", f.get("--request-id-prefix", "")});
    if (f.has("--num-warmups")) a.insert(a.end(), {"--warmup", std::to_string(whole("--num-warmups", f.get("--num-warmups", "0")))});
    if (f.has("--goodput")) {
        for (const auto& pair : f.values.at("--goodput")) {
            const auto colon = pair.find(':');
            std::string name = pair.substr(0, colon);
            if (colon == std::string::npos || (name != "ttft" && name != "tpot" && name != "e2el"))
                throw usage_error("vLLM flags: --goodput '" + pair + "': write ttft:MS, tpot:MS or e2el:MS");
            const double ms = number("--goodput", pair.substr(colon + 1));
            a.insert(a.end(), {"--goodput", (name == "e2el" ? "e2e" : name) + "=" + text_of(ms) + "ms"});
        }
    }
    if (f.has("--header")) {
        for (const auto& pair : f.values.at("--header")) {
            const auto eq = pair.find('=');
            if (eq == std::string::npos || eq == 0) throw usage_error("vLLM flags: --header '" + pair + "': write KEY=VALUE");
            a.insert(a.end(), {"--header", pair.substr(0, eq) + ": " + pair.substr(eq + 1)});
        }
    }

    // openloop's own run flags pass through as given (--out, --progress, ...);
    // one that is neither vLLM's nor openloop's is refused by the run's parser.
    for (const auto& [flag, values] : f.values) {
        if (known.count(flag) || switches.count(flag) || ignored.count(flag)) continue;
        a.push_back(flag);
        a.insert(a.end(), values.begin(), values.end());
    }

    // The result file's keys beside the metrics, as vLLM writes them.
    const std::string label = f.get("--label", "");
    t.result_keys["date"] = now;
    t.result_keys["endpoint_type"] = backend;
    t.result_keys["backend"] = backend;
    t.result_keys["label"] = label.empty() ? json::value(nullptr) : json::value(label);
    t.result_keys["model_id"] = model;
    t.result_keys["tokenizer_id"] = f.get("--tokenizer", model);
    t.result_keys["num_prompts"] = prompts;
    t.result_keys["rtfx"] = 0.0;  // vLLM's real-time factor of audio input: 0 for text
    // vLLM writes goodput only when SLOs were given.
    if (!f.has("--goodput")) t.result_keys["request_goodput"] = nullptr;
    t.result_keys["max_concurrency"] =
        concurrency.empty() ? json::value(nullptr) : json::value(whole("--max-concurrency", concurrency));
    if (f.has("--metadata")) {
        for (const auto& pair : f.values.at("--metadata")) {
            const auto eq = pair.find('=');
            if (eq == std::string::npos || eq == 0) throw usage_error("vLLM flags: --metadata '" + pair + "': write KEY=VALUE");
            t.result_keys[pair.substr(0, eq)] = pair.substr(eq + 1);
        }
    }
    // vLLM's p<N>_<metric>_ms keys: for these metrics at these percentiles (vLLM's defaults).
    const auto split = [](const std::string& text) {
        std::vector<std::string> out;
        for (std::size_t from = 0; from <= text.size();) {
            const std::size_t comma = std::min(text.find(',', from), text.size());
            if (comma > from) out.push_back(text.substr(from, comma - from));
            from = comma + 1;
        }
        return out;
    };
    t.percentile_metrics = split(f.get("--percentile-metrics", "ttft,tpot,itl"));
    for (const auto& m : t.percentile_metrics)
        if (m != "ttft" && m != "tpot" && m != "itl" && m != "e2el")
            throw usage_error("vLLM flags: --percentile-metrics: unknown metric '" + m + "' (ttft, tpot, itl, e2el)");
    for (const auto& p : split(f.get("--metric-percentiles", "99"))) {
        const double v = number("--metric-percentiles", p);
        if (!(v > 0 && v <= 100)) throw usage_error("vLLM flags: --metric-percentiles: " + p + " is not in (0, 100]");
        t.percentiles.push_back(v);
    }
    if (f.has("--save-detailed")) {
        t.detailed = true;
        a.push_back("--log-chunk-gaps");
        t.notes.push_back("--save-detailed: the per-request arrays come from requests.jsonl (itls from its "
                          "chunk_gaps_ms); TTFT and latency from the intended send time");
    }
    if (f.has("--save-result")) {
        // vLLM's name: LABEL-RATEqps[-concurrencyN]-MODEL-DATE.json, unless --result-filename.
        const std::string base_model = model.substr(model.rfind('/') == std::string::npos ? 0 : model.rfind('/') + 1);
        std::string name = (label.empty() ? backend : label) + "-" + rate + "qps" +
                           (concurrency.empty() ? "" : "-concurrency" + concurrency) + "-" + base_model + "-" + now +
                           ".json";
        name = f.get("--result-filename", name);
        const std::string dir = f.get("--result-dir", "");
        t.result_file = dir.empty() ? name : dir + "/" + name;
    }
    return t;
}

}  // namespace openloop
