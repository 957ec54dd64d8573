#include <boost/test/unit_test.hpp>

#include "openloop/cli/usage.hpp"
#include "openloop/cli/vllm_flags.hpp"
#include "test_http.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_vllm_flags)

using namespace openloop;
using args = std::vector<std::string>;

namespace {

vllm_translation tr(const args& a) { return translate_vllm_args(a, "20261202-120000"); }

// The value openloop run gets for flag (the last one), or "" when absent.
std::string value(const vllm_translation& t, const std::string& flag) {
    std::string v;
    for (std::size_t i = 0; i + 1 < t.run_args.size(); ++i)
        if (t.run_args[i] == flag) v = t.run_args[i + 1];
    return v;
}

bool has(const vllm_translation& t, const std::string& flag) {
    return std::find(t.run_args.begin(), t.run_args.end(), flag) != t.run_args.end();
}

}  // namespace

BOOST_AUTO_TEST_CASE(vllm_defaults_become_explicit) {
    const auto t = tr({"--model", "org/m"});
    BOOST_TEST(value(t, "--target") == "http://127.0.0.1:8000");
    BOOST_TEST(value(t, "--endpoint") == "completions");  // backend openai: /v1/completions
    BOOST_TEST(value(t, "--input-len") == "1024");
    BOOST_TEST(value(t, "--output-len") == "128");
    BOOST_TEST(value(t, "--num-requests") == "1000");
    BOOST_TEST(value(t, "--concurrency") == "1000");  // request rate inf: all at once
    BOOST_TEST(t.result_keys.at("request_rate").as_string() == "inf");
    BOOST_TEST(t.result_keys.at("max_concurrency").is_null());
    BOOST_TEST(t.result_keys.at("label").is_null());
    BOOST_TEST(t.result_keys.at("request_goodput").is_null());
    BOOST_TEST(t.result_keys.at("model_id").as_string() == "org/m");
    BOOST_TEST(t.result_keys.at("num_prompts").as_int64() == 1000);
    BOOST_TEST(t.result_file.empty());
    BOOST_TEST(t.percentile_metrics == (std::vector<std::string>{"ttft", "tpot", "itl"}));
    BOOST_TEST(t.percentiles == std::vector<double>{99.0});
    const auto p = tr({"--percentile-metrics", "ttft,e2el", "--metric-percentiles", "25,50,99.9"});
    BOOST_TEST(p.percentile_metrics == (std::vector<std::string>{"ttft", "e2el"}));
    BOOST_TEST(p.percentiles == (std::vector<double>{25.0, 50.0, 99.9}));
    BOOST_CHECK_THROW(tr({"--percentile-metrics", "ttft,queue"}), usage_error);
    BOOST_CHECK_THROW(tr({"--metric-percentiles", "0"}), usage_error);
}

BOOST_AUTO_TEST_CASE(rates_lengths_and_slos_keep_their_meaning) {
    const auto t = tr({"--backend", "openai-chat", "--base-url", "http://h:9/", "--request-rate", "12.5",
                       "--random-input-len", "100", "--random-output-len", "20", "--random-range-ratio", "0.5",
                       "--random-prefix-len", "30", "--goodput", "ttft:500", "e2el:2000", "--header", "X-A=1", "B=two",
                       "--num-warmups", "3", "--max-concurrency", "8", "--seed", "5", "--ignore-eos"});
    BOOST_TEST(value(t, "--target") == "http://h:9");
    BOOST_TEST(value(t, "--endpoint") == "chat");
    BOOST_TEST(value(t, "--rate") == "12.5");
    BOOST_TEST(t.result_keys.at("request_rate").as_double() == 12.5);
    BOOST_TEST(value(t, "--input-len") == "uniform:80:180");  // [50, 150] + the 30-token prefix
    BOOST_TEST(value(t, "--output-len") == "uniform:10:30");
    BOOST_TEST(value(t, "--prefix-len") == "30");
    // With a rate: arrivals past the cap wait client-side, as behind vLLM's semaphore, and a note says how the clocks differ.
    BOOST_TEST(value(t, "--max-concurrency") == "8");
    BOOST_TEST(!has(t, "--max-inflight"));
    BOOST_TEST(std::any_of(t.notes.begin(), t.notes.end(), [](const std::string& n) { return n.find("queue time") != std::string::npos; }));
    BOOST_TEST(value(t, "--warmup") == "3");
    BOOST_TEST(value(t, "--seed") == "5");
    BOOST_TEST(has(t, "--ignore-eos"));
    const args& a = t.run_args;
    BOOST_TEST(std::count(a.begin(), a.end(), "--goodput") == 2);
    BOOST_TEST(std::count(a.begin(), a.end(), "ttft=500ms") == 1);
    BOOST_TEST(std::count(a.begin(), a.end(), "e2e=2000ms") == 1);
    BOOST_TEST(std::count(a.begin(), a.end(), "X-A: 1") == 1);
    BOOST_TEST(std::count(a.begin(), a.end(), "B: two") == 1);
}

BOOST_AUTO_TEST_CASE(inf_with_a_concurrency_is_a_closed_loop_of_that_many) {
    const auto t = tr({"--request-rate", "inf", "--max-concurrency", "16", "--num-prompts", "64"});
    BOOST_TEST(value(t, "--concurrency") == "16");
    BOOST_TEST(!has(t, "--rate"));
    BOOST_TEST(t.result_keys.at("max_concurrency").as_int64() == 16);
}

namespace {

struct piece {
    double from, to, seconds;
};

// "A-B:S,...,R:inf" back into its pieces; the last (flat, for ever) left out.
std::vector<piece> pieces_of(const std::string& profile) {
    std::vector<piece> out;
    std::size_t at = 0;
    while (at < profile.size()) {
        const std::size_t comma = std::min(profile.find(',', at), profile.size());
        const std::string item = profile.substr(at, comma - at);
        at = comma + 1;
        const std::size_t dash = item.find('-'), colon = item.find(':');
        if (dash == std::string::npos) {
            BOOST_TEST(item.substr(colon + 1) == "inf");
            BOOST_TEST(at >= profile.size());
            break;
        }
        out.push_back({std::stod(item.substr(0, dash)), std::stod(item.substr(dash + 1, colon - dash - 1)),
                       std::stod(item.substr(colon + 1))});
    }
    return out;
}

}  // namespace

BOOST_AUTO_TEST_CASE(ramps_follow_vllms_curve_over_the_requests_they_send) {
    // vLLM sets request i's rate from i / (n - 1): linearly, or geometrically for exponential.
    for (const bool exponential : {false, true}) {
        const auto t = tr({"--ramp-up-strategy", exponential ? "exponential" : "linear", "--ramp-up-start-rps", "2",
                           "--ramp-up-end-rps", "8", "--num-prompts", "100"});
        const std::string profile = value(t, "--rate-profile");
        BOOST_TEST(profile.substr(profile.size() - 6) == ",8:inf", profile);  // then the end rate holds
        const auto pieces = pieces_of(profile);
        BOOST_TEST_REQUIRE(pieces.size() == 16u);
        double expected = 0;
        for (std::size_t k = 0; k < pieces.size(); ++k) {
            const double x0 = static_cast<double>(k) / 16, x1 = static_cast<double>(k + 1) / 16;
            const double r0 = exponential ? 2 * std::pow(4.0, x0) : 2 + 6 * x0;
            const double r1 = exponential ? 2 * std::pow(4.0, x1) : 2 + 6 * x1;
            BOOST_TEST(pieces[k].from == r0, boost::test_tools::tolerance(1e-6));
            BOOST_TEST(pieces[k].to == r1, boost::test_tools::tolerance(1e-6));
            if (k > 0) BOOST_TEST(pieces[k].from == pieces[k - 1].to);
            // Each piece lasts as long as its sixteenth of the requests takes at its mean rate.
            expected += pieces[k].seconds * (pieces[k].from + pieces[k].to) / 2;
        }
        BOOST_TEST(expected == 100.0, boost::test_tools::tolerance(1e-6));
        BOOST_TEST(t.result_keys.at("request_rate").as_string() == "ramp-up");
    }
    BOOST_CHECK_THROW(tr({"--ramp-up-strategy", "exponential", "--ramp-up-start-rps", "0", "--ramp-up-end-rps", "4"}),
                      usage_error);
    BOOST_CHECK_THROW(tr({"--ramp-up-strategy", "stepped", "--ramp-up-start-rps", "1", "--ramp-up-end-rps", "4"}),
                      usage_error);
    BOOST_CHECK_THROW(tr({"--ramp-up-strategy", "linear", "--ramp-up-end-rps", "4"}), usage_error);
}

BOOST_AUTO_TEST_CASE(abbreviations_read_as_argparse_reads_them) {
    // vLLM's argparse takes an unambiguous prefix for the flag.
    const auto t = tr({"--random-input", "200", "--num-prom", "20"});
    BOOST_TEST(value(t, "--input-len") == "200");
    BOOST_TEST(value(t, "--num-requests") == "20");
    BOOST_TEST(std::any_of(t.notes.begin(), t.notes.end(), [](const std::string& n) {
        return n.find("--random-input: read as --random-input-len") != std::string::npos;
    }));
    // An ambiguous prefix is no vLLM flag: it passes through for openloop run to judge.
    BOOST_TEST(has(tr({"--random", "x"}), "--random"));
    // openloop's own flags are never taken for an abbreviation.
    const auto own = translate_vllm_args({"--sharegpt", "s.json"}, "20261202-120000",
                                         [](const std::string& f) { return f == "--sharegpt"; });
    BOOST_TEST(value(own, "--sharegpt") == "s.json");
    BOOST_TEST(std::none_of(own.notes.begin(), own.notes.end(), [](const std::string& n) { return n.find("read as") != std::string::npos; }));
}

BOOST_AUTO_TEST_CASE(datasets_results_and_metadata) {
    auto t = tr({"--dataset-name", "sharegpt", "--dataset-path", "/d/s.json", "--model", "a/b", "--request-rate", "4",
                 "--save-result", "--result-dir", "out", "--label", "nightly", "--metadata", "gpu=h100", "tp=2"});
    BOOST_TEST(value(t, "--sharegpt") == "/d/s.json");
    BOOST_TEST(!has(t, "--input-len"));
    BOOST_TEST(t.result_file == "out/nightly-4qps-b-20261202-120000.json");
    BOOST_TEST(t.result_keys.at("label").as_string() == "nightly");
    BOOST_TEST(t.result_keys.at("gpu").as_string() == "h100");
    BOOST_TEST(t.result_keys.at("tp").as_string() == "2");
    t = tr({"--dataset-name", "prefix_repetition", "--prefix-repetition-prefix-len", "100",
            "--prefix-repetition-num-prefixes", "4"});
    BOOST_TEST(value(t, "--input-len") == "356");  // the prefix + vLLM's default 256-token suffix
    BOOST_TEST(value(t, "--prefix-len") == "100");
    BOOST_TEST(value(t, "--prefix-groups") == "4");
    BOOST_TEST(value(t, "--output-len") == "128");
    t = tr({"--dataset-name", "burstgpt", "--dataset-path", "BurstGPT_1.csv", "--request-rate", "3"});
    BOOST_TEST(value(t, "--trace") == "BurstGPT_1.csv");
    BOOST_TEST(value(t, "--trace-format") == "burstgpt");
    BOOST_TEST(has(t, "--trace-lengths-only"));  // lengths from the log, times from the rate
    BOOST_TEST(value(t, "--rate") == "3");
    BOOST_CHECK_THROW(tr({"--dataset-name", "burstgpt"}), usage_error);
    t = tr({"--dataset-name", "custom", "--dataset-path", "p.jsonl", "--save-result", "--result-filename", "r.json"});
    BOOST_TEST(value(t, "--prompts") == "p.jsonl");
    BOOST_TEST(t.result_file == "r.json");
}

BOOST_AUTO_TEST_CASE(openloop_flags_pass_through_and_bad_ones_are_named) {
    const auto t = tr({"--model", "m", "--out", "dir", "--progress", "off", "--disable-tqdm", "--trust-remote-code"});
    BOOST_TEST(value(t, "--out") == "dir");
    BOOST_TEST(value(t, "--progress") == "off");
    BOOST_TEST(!has(t, "--disable-tqdm"));
    BOOST_TEST(t.notes.size() >= 2u);
    for (const args& bad : {args{"--dataset-name", "burstgpt"}, args{"--dataset-name", "sharegpt"},
                            args{"--profile"}, args{"--random-input-len", "ten"}, args{"--goodput", "latency:5"},
                            args{"--endpoint", "/v1/embeddings"}, args{"--random-range-ratio", "1.5"},
                            args{"--num-prompts"}, args{"model"}})
        BOOST_CHECK_THROW(tr(bad), usage_error);
    BOOST_TEST(looks_like_vllm_args({"--model", "m"}));
    BOOST_TEST(!looks_like_vllm_args({"run", "--rate", "1"}));
    BOOST_TEST(!looks_like_vllm_args({"--help"}));
    BOOST_TEST(!looks_like_vllm_args({}));
}

// vLLM loads --tokenizer (else --model) locally: a local model directory
// becomes openloop's fallback tokenizer for a server without /tokenize.
BOOST_AUTO_TEST_CASE(a_local_model_directory_becomes_the_tokenizer_file) {
    const test_http::temp_dir tmp;
    const std::filesystem::path dir = tmp.path;
    std::ofstream(dir / "tokenizer.json") << "{}";
    BOOST_TEST(value(tr({"--model", dir.string()}), "--tokenizer-file") == dir.string());
    BOOST_TEST(value(tr({"--model", "m", "--tokenizer", dir.string()}), "--tokenizer-file") == dir.string());
    BOOST_TEST(!has(tr({"--model", "org/m", "--tokenizer", "org/m"}), "--tokenizer-file"));
}

// vLLM bench picks each request's adapter at random among --lora-modules' names: an
// equal-weight --model mix (a name given twice drawn twice as often), the base never.
BOOST_AUTO_TEST_CASE(lora_modules_become_an_equal_weight_model_mix) {
    const auto t = tr({"--model", "org/base", "--lora-modules", "sql", "chat", "--num-prompts", "10"});
    BOOST_TEST(value(t, "--model") == "sql,chat");
    BOOST_TEST(!has(t, "--lora-modules"));  // read, not passed on to openloop run
    BOOST_TEST(value(t, "--num-requests") == "10");  // the list ended at the next flag
    BOOST_TEST(t.result_keys.at("model_id").as_string() == "org/base");
    BOOST_TEST(value(tr({"--lora-modules", "a", "b", "a"}), "--model") == "a=2,b");
    // The serve side's NAME=PATH form names the adapter as well.
    BOOST_TEST(value(tr({"--lora-modules", "sql=/loras/sql", "chat"}), "--model") == "sql,chat");
    BOOST_TEST(value(tr({"--model", "m", "--served-model-name", "s"}), "--model") == "s");
}

BOOST_AUTO_TEST_SUITE_END()
