#define BOOST_TEST_MODULE vllm_dropin
#include <boost/test/unit_test.hpp>

// A vLLM bench user's command lines, with `openloop` in place of `vllm bench
// serve`, run against the simulator serving the model they name on vLLM's
// default address (127.0.0.1:8000; another port, added as --port, only when
// that one is taken on this machine). Each line gets openloop's own
// --lag-bound 250ms, as every integration test's run does: these check the
// translation and the accounting on a shared, busy machine, and a millisecond
// of schedule lag is the benchmarks' business. The vLLM-shaped result has
// every top-level key vLLM writes, with vLLM's types.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

namespace json = boost::json;
using namespace test_http;
using namespace std::chrono_literals;

namespace {

const std::string model = "meta-llama/Llama-3.1-8B-Instruct";

struct vllm_server {
    std::optional<openloop::child_process> sim;
    std::vector<std::string> extra{"--lag-bound", "250ms"};  // and --port P when 8000 was taken
    vllm_server() {
        for (const std::string& port : {std::string("8000"), std::to_string(free_port())}) {
            sim.emplace(std::vector<std::string>{OPENLOOP_BIN, "sim", "--preset", "h100-8b", "--served-model-name", model,
                                                 "--port", port});
            if (sim->read_line(10s).find("listening on") != std::string::npos) {
                if (port != "8000") extra.insert(extra.end(), {"--port", port});
                return;
            }
            sim.reset();
        }
        BOOST_FAIL("the simulator did not start");
    }
};

// Runs `openloop LINE` in dir, as a user would from a shell there.
int vllm_line(const std::string& dir, std::vector<std::string> line, const std::vector<std::string>& extra,
              const std::string& log) {
    line.insert(line.end(), extra.begin(), extra.end());
    std::string cmd = "cd '" + dir + "' && " + std::string(OPENLOOP_BIN);
    for (const auto& a : line) cmd += " '" + a + "'";
    cmd += " > " + log + " 2>&1";
    const int rc = std::system(cmd.c_str());
    return WIFEXITED(rc) ? WEXITSTATUS(rc) : 128;
}

enum class type { string, string_or_null, integer, number, number_or_null, integer_or_null, number_or_string };

bool is(const json::value& v, type t) {
    switch (t) {
    case type::string: return v.is_string();
    case type::string_or_null: return v.is_string() || v.is_null();
    case type::integer: return v.is_int64() || v.is_uint64();
    case type::number: return v.is_number();
    case type::number_or_null: return v.is_number() || v.is_null();
    case type::integer_or_null: return v.is_int64() || v.is_uint64() || v.is_null();
    case type::number_or_string: return v.is_number() || v.is_string();
    }
    return false;
}

// vLLM's result keys and types (vllm/benchmarks/serve.py: the result dict,
// the keys main() adds, and the per-metric statistics).
void check_vllm_keys(const json::object& r) {
    const std::vector<std::pair<std::string, type>> keys = {
        {"date", type::string}, {"endpoint_type", type::string}, {"backend", type::string},
        {"label", type::string_or_null}, {"model_id", type::string}, {"tokenizer_id", type::string},
        {"num_prompts", type::integer}, {"request_rate", type::number_or_string}, {"burstiness", type::number},
        {"max_concurrency", type::integer_or_null}, {"duration", type::number}, {"completed", type::integer},
        {"failed", type::integer}, {"total_input_tokens", type::integer}, {"total_output_tokens", type::integer},
        {"request_throughput", type::number}, {"request_goodput", type::number_or_null},
        {"output_throughput", type::number}, {"total_token_throughput", type::number},
        {"max_output_tokens_per_s", type::number}, {"max_concurrent_requests", type::number}};
    for (const auto& [key, t] : keys) {
        BOOST_TEST_CONTEXT(key) {
            BOOST_TEST_REQUIRE(r.contains(key));
            BOOST_TEST(is(r.at(key), t), json::serialize(r.at(key)));
        }
    }
    for (const char* metric : {"ttft", "tpot", "itl", "e2el"})
        for (const char* stat : {"mean", "median", "std", "p99"}) {
            const std::string key = std::string(stat) + "_" + metric + "_ms";
            BOOST_TEST_CONTEXT(key) {
                BOOST_TEST_REQUIRE(r.contains(key));
                BOOST_TEST(r.at(key).is_number());
            }
        }
}

std::filesystem::path only_json_in(const std::string& dir) {
    std::vector<std::filesystem::path> found;
    for (const auto& e : std::filesystem::directory_iterator(dir))
        if (e.path().extension() == ".json") found.push_back(e.path());
    BOOST_TEST_REQUIRE(found.size() == 1u);
    return found.front();
}

}  // namespace

BOOST_AUTO_TEST_CASE(lines_from_vllms_documentation_run_unchanged) {
    vllm_server server;
    temp_dir dir;
    // ShareGPT's format: conversations of human and gpt turns.
    {
        json::array conversations;
        for (int i = 0; i < 12; ++i)
            conversations.push_back(json::object{
                {"id", "c" + std::to_string(i)},
                {"conversations",
                 json::array{json::object{{"from", "human"}, {"value", "Tell me about the number " + std::to_string(i)}},
                             json::object{{"from", "gpt"},
                                          {"value", "It is a number between zero and twenty that people write now and then"}}}}});
        std::ofstream(dir.file("ShareGPT_V3_unfiltered_cleaned_split.json")) << json::serialize(conversations);
    }

    // The serving benchmark's ShareGPT example.
    int rc = vllm_line(dir.path.string(), {"--backend", "vllm", "--model", model, "--endpoint", "/v1/completions",
                                    "--dataset-name", "sharegpt", "--dataset-path",
                                    dir.file("ShareGPT_V3_unfiltered_cleaned_split.json"), "--num-prompts", "10"},
                       server.extra, dir.file("sharegpt.log"));
    BOOST_TEST(rc == 0, slurp(dir.file("sharegpt.log")));

    // Random lengths at a rate, the result saved with a label and metadata.
    rc = vllm_line(dir.path.string(), {"--model", model, "--dataset-name", "random", "--random-input-len", "256",
                                "--random-output-len", "32", "--random-range-ratio", "0.25", "--request-rate", "20",
                                "--num-prompts", "60", "--ignore-eos", "--save-result", "--result-dir", "vllm-results",
                                "--label", "nightly", "--metadata", "gpu=none", "tp=1", "--seed", "3"},
                   server.extra, dir.file("random.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("random.log")));
    const json::object random = read_json(only_json_in(dir.file("vllm-results")).string());
    check_vllm_keys(random);
    BOOST_TEST(random.at("num_prompts").as_int64() == 60);
    BOOST_TEST(random.at("completed").as_int64() == 60);
    BOOST_TEST(random.at("failed").as_int64() == 0);
    BOOST_TEST(random.at("request_rate").as_double() == 20.0);
    BOOST_TEST(random.at("label").as_string() == "nightly");
    BOOST_TEST(random.at("gpu").as_string() == "none");
    BOOST_TEST(random.at("model_id").as_string() == model);
    BOOST_TEST(random.at("max_concurrency").is_null());
    BOOST_TEST(random.at("request_goodput").is_null());  // as vLLM: no SLOs, no goodput
    // --ignore-eos: every request produced what it asked for, as the server counted it.
    BOOST_TEST(random.at("total_output_tokens").as_int64() >= 60 * 24);
    BOOST_TEST(random.at("max_output_tokens_per_s").as_double() > 0.0);
    BOOST_TEST(slurp(dir.file("random.log")).find("intended send time") != std::string::npos);

    // Chat, all at once with a concurrency cap, goodput SLOs and vLLM's percentile flags.
    rc = vllm_line(dir.path.string(), {"--backend", "openai-chat", "--endpoint", "/v1/chat/completions", "--model", model,
                                "--dataset-name", "random", "--random-input-len", "128", "--random-output-len", "16",
                                "--request-rate", "inf", "--max-concurrency", "8", "--num-prompts", "40", "--goodput",
                                "ttft:500", "tpot:50", "--percentile-metrics", "ttft,tpot,itl,e2el",
                                "--metric-percentiles", "50,90,99", "--save-result", "--save-detailed", "--result-dir", "chat",
                                "--result-filename", "chat.json"},
                   server.extra, dir.file("chat.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("chat.log")));
    const json::object chat = read_json(dir.file("chat/chat.json"));
    check_vllm_keys(chat);
    BOOST_TEST(chat.at("request_rate").as_string() == "inf");
    BOOST_TEST(chat.at("max_concurrency").as_int64() == 8);
    BOOST_TEST(chat.at("max_concurrent_requests").to_number<double>() <= 8.0);
    BOOST_TEST(chat.at("completed").as_int64() == 40);
    BOOST_TEST(chat.at("backend").as_string() == "openai-chat");
    BOOST_TEST(chat.at("request_goodput").is_number());
    // --save-detailed: vLLM's per-request arrays, one entry per request.
    for (const char* key : {"input_lens", "output_lens", "ttfts", "itls", "latencies", "start_times", "errors"}) {
        BOOST_TEST_REQUIRE(chat.contains(key), key);
        BOOST_TEST(chat.at(key).as_array().size() == 40u, key);
    }
    BOOST_TEST(chat.at("errors").as_array()[0].as_string() == "");
    // --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99: vLLM's names.
    for (const char* key : {"p50_ttft_ms", "p90_tpot_ms", "p99_itl_ms", "p90_e2el_ms"}) BOOST_TEST(chat.contains(key), key);
    BOOST_TEST(chat.at("ttfts").as_array()[0].as_double() > 0.0);
    BOOST_TEST(chat.at("input_lens").as_array()[0].to_number<double>() == 128.0);

    // A linear ramp.
    rc = vllm_line(dir.path.string(), {"--model", model, "--random-input-len", "64", "--random-output-len", "8",
                                "--ramp-up-strategy", "linear", "--ramp-up-start-rps", "5", "--ramp-up-end-rps", "25",
                                "--num-prompts", "60"},
                   server.extra, dir.file("ramp.log"));
    BOOST_TEST(rc == 0, slurp(dir.file("ramp.log")));
    BOOST_TEST(slurp(dir.file("ramp.log")).find("--rate-profile 5-25:4") != std::string::npos, slurp(dir.file("ramp.log")));

    // What openloop cannot do is refused by name.
    rc = vllm_line(dir.path.string(), {"--model", model, "--dataset-name", "sonnet"}, server.extra, dir.file("sonnet.log"));
    BOOST_TEST(rc == 2);
    BOOST_TEST(slurp(dir.file("sonnet.log")).find("--dataset-name sonnet is not supported") != std::string::npos);
}
