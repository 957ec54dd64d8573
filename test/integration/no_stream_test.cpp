#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

BOOST_AUTO_TEST_SUITE(it_no_stream)


namespace json = boost::json;
using namespace test_http;

// Answers that are one JSON body (--no-stream, --endpoint embeddings), the
// real binary against the simulator: exact token accounting request by
// request, checked against the simulator's own log, and no TTFT or ITL anywhere.

namespace {

// Not streamed: the metrics that need chunks are absent from summary.json, not null or 0.
void check_no_stream_metrics(const json::object& summary) {
    BOOST_TEST(summary.at("streamed").as_bool() == false);
    for (const char* key : {"mean_ttft_ms", "p99_ttft_ms", "mean_tpot_ms", "p99_itl_ms", "mean_icl_ms",
                            "mean_ttft_from_send_ms", "itl_source"})
        BOOST_TEST(!summary.contains(key), key << " is reported");
    const auto& h = summary.at("histograms").as_object();
    BOOST_TEST(!h.contains("ttft"));
    BOOST_TEST(!h.contains("itl"));
    BOOST_TEST(h.contains("e2el"));
    BOOST_TEST(summary.at("mean_e2el_ms").as_double() > 0);
    BOOST_TEST(summary.at("p99_e2el_ms").as_double() > 0);
    for (const auto& b : summary.at("by_input_length").as_array()) BOOST_TEST(!b.as_object().contains("mean_ttft_ms"));
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_no_stream_run_counts_every_token_exactly) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--no-stream", "--rate", "20", "--num-requests", "30",
                                 "--input-len", "uniform:16:128", "--output-len", "uniform:4:32", "--ignore-eos",
                                 "--tokenizer", "words", "--goodput", "e2e=60s", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();

    const auto server = sim_log_by_id(sim_log);
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(requests.size() == 30u);
    std::int64_t out_tokens = 0, in_tokens = 0;
    for (const auto& r : requests) {
        BOOST_TEST(r.at("status").as_string() == "ok");
        const auto& s = server.at(std::string(r.at("id").as_string()));
        BOOST_TEST(s.at("stream").as_bool() == false);  // the body said "stream": false
        BOOST_TEST(r.at("streamed").as_bool() == false);
        BOOST_TEST(json_int(r.at("output_tokens")) == json_int(r.at("max_tokens")));
        BOOST_TEST(json_int(r.at("output_tokens")) == json_int(s.at("completion_tokens")));
        BOOST_TEST(r.at("output_tokens_source").as_string() == "usage");
        BOOST_TEST(json_int(r.at("prompt_tokens")) == json_int(r.at("input_tokens")));
        BOOST_TEST(json_int(r.at("prompt_tokens")) == json_int(s.at("prompt_tokens")));
        BOOST_TEST(json_int(r.at("chunks")) == 0);
        for (const char* key : {"ttft_ms", "tpot_ms", "first_token_ns", "last_token_ns"})
            BOOST_TEST(!r.contains(key), key << " is written");
        // E2E ends with the body: after the server had read the whole request.
        BOOST_TEST(r.at("e2e_ms").as_double() > 0);
        BOOST_TEST(json_int(r.at("end_ns")) > json_int(s.at("arrival_ns")));
        out_tokens += json_int(r.at("output_tokens"));
        in_tokens += json_int(r.at("input_tokens"));
    }
    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<std::int64_t>() == 30);
    BOOST_TEST(summary.at("total_output_tokens").to_number<std::int64_t>() == out_tokens);
    BOOST_TEST(summary.at("total_input_tokens").to_number<std::int64_t>() == in_tokens);
    BOOST_TEST(summary.at("server_prompt_tokens").to_number<std::int64_t>() == in_tokens);
    BOOST_TEST(summary.at("output_tokens_source").as_string() == "usage");
    BOOST_TEST(summary.at("output_throughput").as_double() > 0);
    BOOST_TEST(summary.at("goodput_requests").to_number<std::int64_t>() == 30);  // goodput on E2E works
    check_no_stream_metrics(summary);
    const std::string table = slurp(dir.file("run.log"));
    BOOST_TEST(table.find("not streamed") != std::string::npos);
    BOOST_TEST(table.find("\nTTFT ") == std::string::npos);
    BOOST_TEST(table.find("\nE2E ") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(an_embeddings_run_counts_prompt_tokens_against_the_server_log) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--endpoint", "embeddings", "--rate", "20", "--num-requests",
                                 "25", "--input-len", "uniform:8:300", "--tokenizer", "words", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();

    const auto server = sim_log_by_id(sim_log);
    BOOST_TEST_REQUIRE(server.size() == 25u);
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(requests.size() == 25u);
    std::int64_t prompt = 0;
    for (const auto& r : requests) {
        BOOST_TEST(r.at("status").as_string() == "ok");
        const auto& s = server.at(std::string(r.at("id").as_string()));
        BOOST_TEST(s.at("endpoint").as_string() == "/v1/embeddings");
        BOOST_TEST(s.at("stream").as_bool() == false);
        BOOST_TEST(json_int(s.at("completion_tokens")) == 0);
        BOOST_TEST(json_int(r.at("prompt_tokens")) == json_int(s.at("prompt_tokens")));
        BOOST_TEST(json_int(r.at("prompt_tokens")) == json_int(r.at("input_tokens")));
        BOOST_TEST(json_int(r.at("output_tokens")) == 0);
        BOOST_TEST(json_int(r.at("max_tokens")) == 0);
        BOOST_TEST(!r.contains("ttft_ms"));
        BOOST_TEST(r.at("e2e_ms").as_double() > 0);
        prompt += json_int(s.at("prompt_tokens"));
    }
    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<std::int64_t>() == 25);
    BOOST_TEST(summary.at("server_prompt_tokens").to_number<std::int64_t>() == prompt);
    BOOST_TEST(summary.at("total_input_tokens").to_number<std::int64_t>() == prompt);
    BOOST_TEST(summary.at("total_output_tokens").to_number<std::int64_t>() == 0);
    BOOST_TEST(summary.at("request_throughput").as_double() > 0);
    check_no_stream_metrics(summary);
}

BOOST_AUTO_TEST_CASE(the_simulator_serves_embeddings_and_refuses_bad_bodies) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const auto ok = post(sim.port, "/v1/embeddings", R"({"model":"openloop-sim","input":["one two three","four"]})");
    BOOST_TEST_REQUIRE(ok.status == 200, ok.body);
    const auto body = json::parse(ok.body).as_object();
    BOOST_TEST(body.at("data").as_array().size() == 2u);
    BOOST_TEST(body.at("usage").as_object().at("prompt_tokens").as_int64() == 4);
    const auto bad = post(sim.port, "/v1/embeddings", R"({"model":"openloop-sim"})");
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(json::parse(bad.body).as_object().at("error").as_object().at("message").as_string() ==
               "input: field required");
    BOOST_TEST(get(sim.port, "/v1/embeddings").status == 405);
}

BOOST_AUTO_TEST_CASE(flags_that_make_no_sense_are_usage_errors) {
    temp_dir dir;
    const auto refused = [&](const std::vector<std::string>& args, std::string_view says) {
        const int rc = openloop_cli(args, dir.file("cli.log"));
        const std::string log = slurp(dir.file("cli.log"));
        BOOST_TEST(rc == 2, log);
        BOOST_TEST(log.find(says) != std::string::npos, log);
    };
    refused({"run", "--endpoint", "embeddings", "--ignore-eos"}, "--ignore-eos shapes generated output");
    refused({"run", "--endpoint", "embeddings", "--output-len", "64"}, "--endpoint embeddings generates none");
    refused({"run", "--no-stream", "--goodput", "ttft=1s"}, "--goodput ttft: --no-stream answers are not streamed");
    refused({"run", "--endpoint", "embeddings", "--goodput", "itl=50ms"}, "embeddings are not streamed");
    refused({"run", "--no-stream", "--log-chunk-gaps"}, "--log-chunk-gaps");
    refused({"sweep", "--no-stream", "--slo", "ttft_p99=1s"}, "--slo ttft");
    refused({"run", "--endpoint", "responses", "--no-continuous-usage"}, "a Responses stream has no stream options");
    refused({"run", "--endpoint", "anthropic"}, "--endpoint must be chat, completions, responses, embeddings or transcriptions");
}

BOOST_AUTO_TEST_SUITE_END()
