// A weighted mix of models behind one endpoint, against the simulator serving
// a base model and LoRA adapters: each model gets its share of the requests
// (binomial noise), the same seed gives every request the same model again,
// adapter swaps show in TTFT when more adapters are in use than --max-loras,
// and a session keeps one model and one X-Session-ID for its turns while every
// request carries a well-formed, unique W3C traceparent.

#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_model_mix)

namespace json = boost::json;
using namespace test_http;

namespace {

const std::vector<std::string> lora_sim = {"--served-model-name", "base", "--lora-modules", "a,b,c"};

std::vector<std::string> with(std::vector<std::string> v, const std::vector<std::string>& more) {
    v.insert(v.end(), more.begin(), more.end());
    return v;
}

// The model the server logged for each request id.
std::map<std::string, std::string> models_by_id(const std::string& sim_log) {
    std::map<std::string, std::string> out;
    for (const auto& [id, line] : sim_log_by_id(sim_log)) out[id] = std::string(line.at("model").as_string());
    return out;
}

// One run of the mix against a fresh firehose simulator; its server log's models by request id.
std::map<std::string, std::string> mixed_run(const temp_dir& dir, const std::string& name) {
    const auto sim_log = dir.file(name + ".sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, with({"--preset", "firehose", "--log", sim_log}, lora_sim));
    const int rc = run_openloop({"--target", sim.url, "--model", "base=0.4,a=0.3,b=0.2,c=0.1", "--seed", "7",
                                 "--rate", "1000", "--num-requests", "1500", "--input-len", "16", "--output-len", "4",
                                 "--out", dir.file(name)},
                                dir.file(name + ".log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file(name + ".log")));
    sim.process.stop();
    return models_by_id(sim_log);
}

bool lower_hex(const std::string& s) {
    return s.find_first_not_of("0123456789abcdef") == std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_weighted_mix_delivers_each_share_and_reruns_agree) {
    temp_dir dir;
    const auto first = mixed_run(dir, "one");
    BOOST_TEST_REQUIRE(first.size() == 1500u);
    std::map<std::string, int> counts;
    for (const auto& [id, model] : first) ++counts[model];
    const double n = 1500;
    for (const auto& [model, weight] : std::map<std::string, double>{{"base", 0.4}, {"a", 0.3}, {"b", 0.2}, {"c", 0.1}}) {
        const double sigma = std::sqrt(n * weight * (1 - weight));
        BOOST_TEST(std::abs(counts[model] - n * weight) < 4 * sigma, model << ": " << counts[model]);
    }
    BOOST_TEST(counts.size() == 4u);
    // Per model, the summary says what the request log says: each model's requests, and its
    // TTFT median (to the histogram's 3 significant digits).
    const json::object by_model = read_json(dir.file("one/summary.json")).at("by_model").as_object();
    std::map<std::string, std::vector<std::int64_t>> ttfts;  // ns
    for (const auto& r : read_jsonl(dir.file("one/requests.jsonl"))) {
        const std::string model(r.at("model").as_string());
        BOOST_TEST(first.at(std::string(r.at("id").as_string())) == model);  // the server saw the same one
        ttfts[model].push_back(json_int(r.at("first_token_ns")) - json_int(r.at("intended_ns")));
    }
    BOOST_TEST_REQUIRE(by_model.size() == 4u);
    for (auto& [model, values] : ttfts) {
        const json::object& m = by_model.at(model).as_object();
        BOOST_TEST(m.at("completed").to_number<std::size_t>() == values.size(), model);
        BOOST_TEST(m.at("completed").to_number<int>() == counts[model], model);
        const double expected = nearest_rank(values, 50) / 1e6;
        BOOST_TEST(std::abs(m.at("p50_ttft_ms").to_number<double>() - expected) <= expected * 1e-3 + 1e-3, model);
    }
    // The same seed: every request goes to the same model again.
    BOOST_TEST((mixed_run(dir, "two") == first));
}

BOOST_AUTO_TEST_CASE(adapter_swaps_show_in_ttft_past_max_loras) {
    temp_dir dir;
    std::map<int, double> ttft_p50;
    std::map<int, double> loads;
    for (const int max_loras : {1, 4}) {
        const std::string name = "loras" + std::to_string(max_loras);
        auto sim = openloop::start_sim(openloop_test::bin,
                                       {"--preset", "h100-8b", "--served-model-name", "base", "--lora-modules",
                                        "a,b,c,d", "--max-loras", std::to_string(max_loras), "--lora-load-ms", "20"});
        if (max_loras == 1) {
            // vLLM's answers: the adapters listed after the base, an unknown model refused with a 404.
            const auto models = json::parse(get(sim.port, "/v1/models").body).at("data").as_array();
            BOOST_TEST_REQUIRE(models.size() == 5u);
            BOOST_TEST(models[1].at("id").as_string() == "a");
            BOOST_TEST(models[1].at("parent").as_string() == "base");
            const auto refused = post(sim.port, "/v1/completions", R"({"model":"x","prompt":"hi","max_tokens":2})");
            BOOST_TEST(refused.status == 404);
            BOOST_TEST(refused.body.find("The model `x` does not exist.") != std::string::npos, refused.body);
            const auto answered = post(sim.port, "/v1/completions", R"({"model":"b","prompt":"hi","max_tokens":2})");
            BOOST_TEST(json::parse(answered.body).at("model").as_string() == "b", answered.body);
        }
        const int rc = run_openloop({"--target", sim.url, "--model", "a,b,c,d", "--rate", "40", "--num-requests",
                                     "80", "--input-len", "64", "--output-len", "16", "--ignore-eos", "--out",
                                     dir.file(name)},
                                    dir.file(name + ".log"));
        BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file(name + ".log")));
        const std::string metrics = get(sim.port, "/metrics").body;
        BOOST_TEST(metrics.find("vllm:lora_requests_info{max_lora=\"" + std::to_string(max_loras) +
                                "\",running_lora_adapters=\"\",waiting_lora_adapters=\"\"} ") != std::string::npos,
                   metrics);
        const auto at = metrics.find("\nopenloop_sim_lora_loads_total ");
        BOOST_TEST_REQUIRE(at != std::string::npos);
        loads[max_loras] = std::stod(metrics.substr(at + 31));
        sim.process.stop();
        ttft_p50[max_loras] = read_json(dir.file(name + "/summary.json")).at("p50_ttft_ms").to_number<double>();
    }
    // Four slots: each adapter loaded once. One slot: a load at nearly every change of adapter.
    BOOST_TEST(loads[4] == 4);
    BOOST_TEST(loads[1] > 6);
    // Each swap waits for the batch of the other adapter to drain, then pays 20 ms.
    BOOST_TEST(ttft_p50[1] > ttft_p50[4] + 20, ttft_p50[1] << " ms against " << ttft_p50[4] << " ms");
}

BOOST_AUTO_TEST_CASE(a_session_keeps_its_model_and_id_and_each_request_its_own_trace) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, with({"--preset", "firehose", "--log", sim_log}, lora_sim));
    const int rc = run_openloop({"--target", sim.url, "--model", "base,a,b,c", "--rate", "20", "--num-requests",
                                 "24", "--turns", "4", "--think-time", "5ms", "--input-len", "16", "--output-len", "4",
                                 "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    const auto lines = read_jsonl(sim_log);
    BOOST_TEST_REQUIRE(lines.size() == 96u);
    std::map<std::string, std::set<std::string>> models_of_session;
    std::map<std::string, int> turns_of_session;
    std::set<std::string> trace_ids;
    for (const auto& l : lines) {
        const std::string session(l.at("session_id").as_string());
        models_of_session[session].insert(std::string(l.at("model").as_string()));
        ++turns_of_session[session];
        // 00-<32 hex trace id>-<16 hex span id>-01; the trace id begins with the request index.
        const std::string tp(l.at("traceparent").as_string());
        BOOST_TEST_REQUIRE(tp.size() == 55u, tp);
        BOOST_TEST(tp.substr(0, 3) == "00-");
        BOOST_TEST(tp.substr(35, 1) == "-");
        BOOST_TEST(tp.substr(52) == "-01");
        const std::string trace = tp.substr(3, 32), span = tp.substr(36, 16);
        BOOST_TEST((lower_hex(trace) && lower_hex(span)), tp);
        BOOST_TEST(trace != std::string(32, '0'));
        BOOST_TEST(span != std::string(16, '0'));
        const std::string id(l.at("request_id").as_string());
        BOOST_TEST(std::stoull(trace.substr(0, 16), nullptr, 16) == std::stoull(id.substr(id.find('-') + 1)), tp);
        trace_ids.insert(trace);
    }
    BOOST_TEST(trace_ids.size() == lines.size());
    BOOST_TEST_REQUIRE(models_of_session.size() == 24u);
    std::set<std::string> models;
    for (const auto& [session, used] : models_of_session) {
        BOOST_TEST(session.rfind("openloop-session-", 0) == 0u, session);
        BOOST_TEST(used.size() == 1u, session);
        BOOST_TEST(turns_of_session[session] == 4, session);
        models.insert(used.begin(), used.end());
    }
    BOOST_TEST(models.size() > 1u);  // 24 sessions over 4 models: more than one drawn
}

// vllm bench serve's --lora-modules through the drop-in: every request to one of the adapters.
BOOST_AUTO_TEST_CASE(the_vllm_drop_in_sends_each_request_to_one_of_the_lora_modules) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, with({"--preset", "firehose", "--log", sim_log}, lora_sim));
    const int rc = openloop_cli({"--base-url", sim.url, "--model", "base", "--lora-modules", "a", "b", "--num-prompts",
                                 "60", "--random-input-len", "16", "--random-output-len", "4", "--progress", "off",
                                 "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    std::map<std::string, int> counts;
    for (const auto& [id, model] : models_by_id(sim_log)) ++counts[model];
    BOOST_TEST(counts.size() == 2u);  // a and b, never the base
    BOOST_TEST(counts["a"] + counts["b"] == 60);
}

BOOST_AUTO_TEST_SUITE_END()
