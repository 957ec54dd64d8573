#include <boost/test/unit_test.hpp>

#include "openloop/results/workload_match.hpp"

#include <boost/json.hpp>

BOOST_AUTO_TEST_SUITE(unit_workload_match)

using namespace openloop;
namespace json = boost::json;

namespace {

// A run.json's context as `openloop run --rate 4 --input-len 64 --output-len 16` records it.
run_context described(const char* target = "http://10.0.0.1:8000/v1") {
    run_context c;
    c.target = target;
    c.tokenizer = "server (vllm chat template)";
    c.request_rate = 4;
    c.arrival = "poisson 4 req/s";
    c.config = json::object{{"target", target}, {"model", "llama"}, {"rate", 4.0}, {"arrival", "poisson"},
                            {"burstiness", 1.0}, {"input-len", "64"}, {"output-len", "16"}, {"endpoint", "chat"},
                            {"no-stream", false}, {"temperature", 0.0}, {"tokenizer", "auto"}, {"seed", 11},
                            {"duration", "10s"}, {"out", "a"}, {"warmup", "0"}, {"timeout", "0"}};
    return c;
}

}  // namespace

// What differs between the parts of one run by design is not a difference.
BOOST_AUTO_TEST_CASE(shards_and_repeats_of_one_run_do_not_differ) {
    const run_context a = described();
    run_context b = described();
    b.config["seed"] = 12;
    b.config["shard"] = "1/4";
    b.config["start-at"] = "2026-12-04T13:00:00Z";
    b.config["duration"] = "60s";
    b.config["out"] = "b";
    b.config["progress"] = "off";
    b.shard = "1/4";
    b.clock.origin_steady_ns = 5;
    BOOST_TEST(run_differences(a, b).empty());
}

// Two servers at one workload: compare's use. Said, not a workload difference.
BOOST_AUTO_TEST_CASE(another_target_is_the_server_under_test_not_the_workload) {
    const run_context b = described("sim:cpu-small");
    const auto d = run_differences(described(), b);
    BOOST_TEST_REQUIRE(d.size() == 1u);
    BOOST_TEST(d[0].aspect == "target");
    BOOST_TEST(!d[0].workload);
    BOOST_TEST(!any_workload_difference(d));
    BOOST_TEST(differences_text(d) == "target: http://10.0.0.1:8000/v1 vs sim:cpu-small");
}

BOOST_AUTO_TEST_CASE(lengths_rate_arrival_endpoint_and_model_are_named) {
    run_context b = described();
    b.config["model"] = "qwen";
    b.config["input-len"] = "uniform:32:128";
    b.config["rate"] = 8.0;
    b.request_rate = 8;
    b.config["arrival"] = "gamma";
    b.config["endpoint"] = "completions";
    b.config["sharegpt"] = "sg.json";
    const auto d = run_differences(described(), b);
    BOOST_TEST(any_workload_difference(d));
    BOOST_TEST(differences_text(d) ==
               "model: llama vs qwen; endpoint: chat vs completions; lengths: input-len 64 vs uniform:32:128; "
               "prompts: sharegpt (not set) vs sg.json; rate: 4 vs 8; arrival: poisson vs gamma",
               differences_text(d));
    const json::array j = differences_json(d);
    BOOST_TEST(j.size() == d.size());
    BOOST_TEST(j[0].at("aspect").as_string() == "model");
    BOOST_TEST(j[0].at("workload").as_bool() == false);
    BOOST_TEST(j[4].at("first").as_string() == "4");
    BOOST_TEST(j[4].at("workload").as_bool() == true);
}

// A sweep's stages record the sweep's flags: their offered rates tell them apart.
BOOST_AUTO_TEST_CASE(sweep_stages_differ_in_their_offered_rate) {
    run_context b = described();
    b.request_rate = 6;
    auto d = run_differences(described(), b);
    BOOST_TEST_REQUIRE(d.size() == 1u);
    BOOST_TEST(differences_text(d) == "rate: request_rate 4 req/s vs 6 req/s");
    // A trace's offered rate is measured on each shard's part: its flags say whether it is one replay.
    run_context x = described(), y = described();
    x.config["trace"] = y.config["trace"] = "t.jsonl";
    y.request_rate = 3.9;
    BOOST_TEST(run_differences(x, y).empty());
}

BOOST_AUTO_TEST_CASE(the_tokenizer_asked_for_is_workload_the_one_calibrated_is_the_servers) {
    run_context b = described();
    b.tokenizer = "server (llama.cpp prompt)";
    auto d = run_differences(described(), b);
    BOOST_TEST_REQUIRE(d.size() == 1u);
    BOOST_TEST(!d[0].workload);
    b.config["tokenizer"] = "words";
    d = run_differences(described(), b);
    BOOST_TEST(any_workload_difference(d));
    BOOST_TEST(differences_text(d) ==
               "tokenizer: calibrated server (vllm chat template) vs server (llama.cpp prompt); tokenizer: auto vs words");
}

// An agent's tools and a reasoning model's effort change what the server is asked; a run
// recorded before these flags existed ran without tools.
BOOST_AUTO_TEST_CASE(tools_response_format_and_reasoning_effort_are_the_workload) {
    run_context with_tools = described();
    with_tools.config["tools"] = 3;
    with_tools.config["tool-latency"] = "200ms";
    with_tools.config["reasoning-effort"] = "high";
    with_tools.config["response-format"] = "json_object";
    const auto d = run_differences(described(), with_tools);
    BOOST_TEST(any_workload_difference(d));
    BOOST_TEST(differences_text(d) ==
                   "sampling: response-format (not set) vs json_object; sampling: reasoning-effort (not set) vs high; "
                   "tools: 0 vs 3; tools: tool-latency 0 vs 200ms",
               differences_text(d));
    run_context no_tools = described();
    no_tools.config["tools"] = 0;
    no_tools.config["max-tool-steps"] = 8;
    BOOST_TEST(run_differences(described(), no_tools).empty());
}

BOOST_AUTO_TEST_SUITE_END()
