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
#include "test_paths.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_vllm_dropin)

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
            sim.emplace(std::vector<std::string>{openloop_test::bin, "sim", "--preset", "h100-8b", "--served-model-name", model,
                                                 "--port", port});
            // A simulator that cannot bind exits (read_line throws): 8000 is
            // taken, by another program or another case of this file running
            // beside this one.
            try {
                if (sim->read_line(10s).find("listening on") != std::string::npos) {
                    if (port != "8000") extra.insert(extra.end(), {"--port", port});
                    return;
                }
            } catch (const std::runtime_error&) {
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
    std::string cmd = "cd '" + dir + "' && " + std::string(openloop_test::bin);
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

    // itls: each request's gaps between its chunks, in seconds, adding up to its decode time.
    const json::array& itls = chat.at("itls").as_array();
    const json::array& output_lens = chat.at("output_lens").as_array();
    for (std::size_t i = 0; i < itls.size(); ++i) {
        double sum = 0;
        for (const json::value& g : itls[i].as_array()) sum += g.to_number<double>();
        BOOST_TEST(!itls[i].as_array().empty());
        BOOST_TEST(itls[i].as_array().size() < output_lens[i].to_number<double>());  // chunks - 1, and no more
        const double decode = chat.at("latencies").as_array()[i].to_number<double>() - chat.at("ttfts").as_array()[i].to_number<double>();
        BOOST_TEST(sum == decode, boost::test_tools::tolerance(1e-6));
    }

    // Ramps, linear and exponential: vLLM's curve, and every prompt sent.
    for (const char* strategy : {"linear", "exponential"}) {
        const std::string log = dir.file(std::string("ramp-") + strategy + ".log");
        rc = vllm_line(dir.path.string(), {"--model", model, "--random-input-len", "64", "--random-output-len", "8",
                                    "--ramp-up-strategy", strategy, "--ramp-up-start-rps", "5", "--ramp-up-end-rps", "25",
                                    "--num-prompts", "60", "--out", std::string("ramp-") + strategy},
                       server.extra, log);
        BOOST_TEST(rc == 0, slurp(log));
        BOOST_TEST(slurp(log).find("--rate-profile 5-") != std::string::npos, slurp(log));
        BOOST_TEST(read_json(dir.file(std::string("ramp-") + strategy + "/summary.json")).at("completed").as_int64() == 60);
    }

    // What openloop cannot do is refused by name.
    rc = vllm_line(dir.path.string(), {"--model", model, "--dataset-name", "sonnet"}, server.extra, dir.file("sonnet.log"));
    BOOST_TEST(rc == 2);
    BOOST_TEST(slurp(dir.file("sonnet.log")).find("--dataset-name sonnet is not supported") != std::string::npos);
}

namespace {

// The JSON kind a value has, as Python's json module tells them apart.
std::string kind_of(const json::value& v) {
    if (v.is_null()) return "null";
    if (v.is_bool()) return "bool";
    if (v.is_int64() || v.is_uint64()) return "integer";
    if (v.is_double()) return "float";
    if (v.is_string()) return "string";
    if (v.is_array()) return "array";
    return "object";
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_real_vllm_result_files_keys_are_ours_with_its_types) {
    vllm_server server;
    temp_dir dir;
    // The command that wrote test/data/vllm's file, with openloop in vLLM's place (fewer prompts, faster).
    const int rc = vllm_line(dir.path.string(), {"--model", model, "--dataset-name", "random", "--random-input", "200",
                                                 "--num-prompts", "20", "--request-rate", "20", "--save-result",
                                                 "--result-dir", "./perf_results/"},
                             server.extra, dir.file("real.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("real.log")));
    BOOST_TEST(slurp(dir.file("real.log")).find("read as --random-input-len") != std::string::npos);
    const json::object ours = read_json(only_json_in(dir.file("perf_results")).string());
    const json::object theirs =
        read_json(std::string(openloop_test::source_dir) + "/test/data/vllm/openai-1.0qps-Qwen2.5-VL-3B-Instruct-20260722-060114.json");
    BOOST_TEST(theirs.size() >= 30u);
    for (const auto& [key, value] : theirs) {
        BOOST_TEST_CONTEXT(key) {
            BOOST_TEST_REQUIRE(ours.contains(key));
            BOOST_TEST(kind_of(ours.at(key)) == kind_of(value), json::serialize(ours.at(key)));
        }
    }
    BOOST_TEST(ours.at("total_input_tokens").as_int64() == 20 * 200);
}

BOOST_AUTO_TEST_CASE(max_concurrency_with_a_rate_queues_arrivals_client_side) {
    vllm_server server;
    temp_dir dir;
    // 40 req/s of requests that each take a good part of a second: at most 2 in flight, the rest wait their turn.
    const int rc = vllm_line(dir.path.string(), {"--model", model, "--random-input-len", "64", "--random-output-len", "24",
                                                 "--ignore-eos", "--request-rate", "40", "--max-concurrency", "2",
                                                 "--num-prompts", "30", "--save-result", "--result-filename", "q.json",
                                                 "--out", "q"},
                             server.extra, dir.file("q.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("q.log")));
    BOOST_TEST(slurp(dir.file("q.log")).find("queue time") != std::string::npos);
    const json::object vllm = read_json(dir.file("q.json"));
    BOOST_TEST(vllm.at("max_concurrency").as_int64() == 2);
    BOOST_TEST(vllm.at("completed").as_int64() == 30);
    BOOST_TEST(vllm.at("max_concurrent_requests").to_number<double>() <= 2.0);
    // vLLM's errors list, one entry per request, and openloop's count by class beside it.
    const json::object summary = read_json(dir.file("q/summary.json"));
    BOOST_TEST(summary.at("errors").as_array().size() == 30u);
    BOOST_TEST(summary.at("errors_by_class").is_object());
    BOOST_TEST(summary.at("queued").to_number<double>() > 10.0);
    BOOST_TEST(summary.at("p99_queue_ms").to_number<double>() > summary.at("p50_queue_ms").to_number<double>());

    std::vector<json::object> lines = read_jsonl(dir.file("q/requests.jsonl"));
    BOOST_TEST_REQUIRE(lines.size() == 30u);
    const auto ns = [](const json::object& o, const char* k) { return o.at(k).to_number<std::int64_t>(); };
    // Never more than 2 in flight, from what each request's own timestamps say.
    std::vector<std::pair<std::int64_t, int>> edges;
    std::vector<std::pair<std::int64_t, std::int64_t>> released;  // (release, index) of those that waited
    for (const auto& o : lines) {
        edges.emplace_back(ns(o, "sent_ns"), 1);
        edges.emplace_back(ns(o, "end_ns"), -1);
        if (!o.contains("released_ns")) {
            BOOST_TEST(!o.contains("queue_ms"));
            continue;
        }
        BOOST_TEST(ns(o, "released_ns") >= ns(o, "intended_ns"));
        BOOST_TEST(ns(o, "sent_ns") >= ns(o, "released_ns"));
        // queue + lag = from arrival to send; the latency clock still starts at the arrival.
        BOOST_TEST(o.at("queue_ms").to_number<double>() + o.at("lag_ms").to_number<double>() ==
                       static_cast<double>(ns(o, "sent_ns") - ns(o, "intended_ns")) / 1e6,
                   boost::test_tools::tolerance(1e-6));
        BOOST_TEST(o.at("ttft_ms").to_number<double>() ==
                       static_cast<double>(ns(o, "first_token_ns") - ns(o, "intended_ns")) / 1e6,
                   boost::test_tools::tolerance(1e-6));
        released.emplace_back(ns(o, "released_ns"), ns(o, "index"));
    }
    BOOST_TEST(released.size() == summary.at("queued").to_number<std::size_t>());
    std::sort(edges.begin(), edges.end());  // at one instant an end (-1) sorts before a send
    int inflight = 0, peak = 0;
    for (const auto& [t, d] : edges) peak = std::max(peak, inflight += d);
    BOOST_TEST(peak <= 2);
    // In arrival order: released in the order they arrived.
    std::sort(released.begin(), released.end());
    for (std::size_t i = 1; i < released.size(); ++i) BOOST_TEST(released[i].second > released[i - 1].second);
}

BOOST_AUTO_TEST_CASE(burstgpt_gives_the_lengths_and_the_rate_the_times) {
    vllm_server server;
    temp_dir dir;
    // BurstGPT's columns, hours apart: replayed at its own times this would take a day. The
    // failed row (0 response tokens) is left out, as vLLM leaves it out.
    std::ofstream(dir.file("BurstGPT_1.csv")) << "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"
                                                 "5,ChatGPT,40,12,52,Conversation log\n"
                                                 "3605,GPT-4,90,0,90,Conversation log\n"
                                                 "7205,GPT-4,25,20,45,API log\n"
                                                 "86400,ChatGPT,60,8,68,Conversation log\n";
    const int rc = vllm_line(dir.path.string(), {"--model", model, "--dataset-name", "burstgpt", "--dataset-path",
                                                 dir.file("BurstGPT_1.csv"), "--request-rate", "20", "--num-prompts", "9",
                                                 "--ignore-eos", "--out", "b"},
                             server.extra, dir.file("b.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("b.log")));
    const json::object summary = read_json(dir.file("b/summary.json"));
    BOOST_TEST(summary.at("completed").as_int64() == 9);
    BOOST_TEST(summary.at("duration").to_number<double>() < 30.0);
    std::vector<json::object> lines = read_jsonl(dir.file("b/requests.jsonl"));
    std::sort(lines.begin(), lines.end(), [](const auto& a, const auto& b) {
        return a.at("index").template to_number<int>() < b.at("index").template to_number<int>();
    });
    BOOST_TEST_REQUIRE(lines.size() == 9u);
    const int input[] = {40, 25, 60}, output[] = {12, 20, 8};
    for (std::size_t i = 0; i < lines.size(); ++i) {
        BOOST_TEST_CONTEXT("request " << i) {
            BOOST_TEST(lines[i].at("input_tokens").to_number<int>() == input[i % 3]);
            BOOST_TEST(lines[i].at("prompt_tokens").to_number<int>() == input[i % 3]);  // as the server counted
            BOOST_TEST(lines[i].at("max_tokens").to_number<int>() == output[i % 3]);
            BOOST_TEST(lines[i].at("output_tokens").to_number<int>() == output[i % 3]);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
