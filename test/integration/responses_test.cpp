#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <map>

BOOST_AUTO_TEST_SUITE(it_responses)

namespace json = boost::json;
using namespace test_http;

// --endpoint responses, the real binary against the simulator's
// /v1/responses: streamed and not, every request's tokens exactly as asked
// and as the simulator's log counted them, and the stream's clocks.

namespace {

struct run {
    std::map<std::string, json::object> server;
    std::vector<json::object> requests;
    json::object summary;
};

// 30 requests with --ignore-eos: each asks for exactly its output length.
run run_against_sim(temp_dir& dir, const std::vector<std::string>& extra) {
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small", "--log", sim_log});
    std::vector<std::string> args{"--target", sim.url, "--endpoint", "responses", "--rate", "20", "--num-requests",
                                  "30", "--input-len", "uniform:16:128", "--output-len", "uniform:4:32",
                                  "--ignore-eos", "--tokenizer", "words", "--out", dir.file("out")};
    args.insert(args.end(), extra.begin(), extra.end());
    const int rc = run_openloop(args, dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    run r{sim_log_by_id(sim_log), read_jsonl(dir.file("out/requests.jsonl")), read_json(dir.file("out/summary.json"))};
    BOOST_TEST_REQUIRE(r.requests.size() == 30u);
    BOOST_TEST_REQUIRE(r.server.size() == 30u);
    return r;
}

// Request by request against the simulator's log: the tokens asked, generated and counted agree.
void check_exact_tokens(const run& r, bool streamed) {
    std::int64_t out_tokens = 0, in_tokens = 0;
    for (const auto& q : r.requests) {
        BOOST_TEST(q.at("status").as_string() == "ok");
        const auto& s = r.server.at(std::string(q.at("id").as_string()));
        BOOST_TEST(s.at("endpoint").as_string() == "/v1/responses");
        BOOST_TEST(s.at("stream").as_bool() == streamed);
        // requests.jsonl says "streamed": false on an answer that was one body only.
        BOOST_TEST(q.contains("streamed") == !streamed);
        BOOST_TEST(json_int(q.at("output_tokens")) == json_int(q.at("max_tokens")));
        BOOST_TEST(json_int(q.at("output_tokens")) == json_int(s.at("completion_tokens")));
        BOOST_TEST(q.at("output_tokens_source").as_string() == "usage");
        BOOST_TEST(json_int(q.at("prompt_tokens")) == json_int(q.at("input_tokens")));
        BOOST_TEST(json_int(q.at("prompt_tokens")) == json_int(s.at("prompt_tokens")));
        out_tokens += json_int(q.at("output_tokens"));
        in_tokens += json_int(q.at("input_tokens"));
    }
    BOOST_TEST(r.summary.at("completed").to_number<std::int64_t>() == 30);
    BOOST_TEST(r.summary.at("total_output_tokens").to_number<std::int64_t>() == out_tokens);
    BOOST_TEST(r.summary.at("total_input_tokens").to_number<std::int64_t>() == in_tokens);
    BOOST_TEST(r.summary.at("server_prompt_tokens").to_number<std::int64_t>() == in_tokens);
    BOOST_TEST(r.summary.at("output_tokens_source").as_string() == "usage");
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_streamed_responses_run_counts_every_token_and_times_the_deltas) {
    temp_dir dir;
    const run r = run_against_sim(dir, {});
    check_exact_tokens(r, true);
    for (const auto& q : r.requests) {
        // Each engine step's words are one output_text delta: at least one, at most a token each.
        BOOST_TEST(json_int(q.at("chunks")) >= 1);
        BOOST_TEST(json_int(q.at("chunks")) <= json_int(q.at("output_tokens")));
        BOOST_TEST(q.at("ttft_ms").as_double() > 0);
        BOOST_TEST(q.at("e2e_ms").as_double() >= q.at("ttft_ms").as_double());
    }
    BOOST_TEST(!r.summary.contains("streamed"));  // written only as false, for answers that were not
    BOOST_TEST(r.summary.at("mean_ttft_ms").as_double() > 0);
    BOOST_TEST(r.summary.at("p99_itl_ms").as_double() > 0);
    // No continuous usage in a Responses stream: the intervals are the deltas'.
    BOOST_TEST(r.summary.at("itl_source").as_string() == "chunks");
    const auto& h = r.summary.at("histograms").as_object();
    BOOST_TEST(h.contains("ttft"));
    BOOST_TEST(h.contains("itl"));
}

BOOST_AUTO_TEST_CASE(a_non_streamed_responses_run_counts_every_token) {
    temp_dir dir;
    const run r = run_against_sim(dir, {"--no-stream"});
    check_exact_tokens(r, false);
    for (const auto& q : r.requests) {
        BOOST_TEST(json_int(q.at("chunks")) == 0);
        BOOST_TEST(!q.contains("ttft_ms"));
        BOOST_TEST(q.at("e2e_ms").as_double() > 0);
    }
    BOOST_TEST(r.summary.at("streamed").as_bool() == false);
    BOOST_TEST(!r.summary.contains("mean_ttft_ms"));
}

BOOST_AUTO_TEST_CASE(the_simulator_serves_responses_and_refuses_bad_bodies) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const auto ok = post(sim.port, "/v1/responses",
                         R"({"model":"openloop-sim","input":"one two three","max_output_tokens":5,"ignore_eos":true})");
    BOOST_TEST_REQUIRE(ok.status == 200, ok.body);
    const auto body = json::parse(ok.body).as_object();
    BOOST_TEST(body.at("object").as_string() == "response");
    BOOST_TEST(body.at("status").as_string() == "incomplete");  // stopped at max_output_tokens
    BOOST_TEST(body.at("usage").at("input_tokens").as_int64() == 3);
    BOOST_TEST(body.at("usage").at("output_tokens").as_int64() == 5);
    const auto& text = body.at("output").at(0).at("content").at(0).at("text").as_string();
    BOOST_TEST(std::count(text.begin(), text.end(), ' ') == 5);  // five words, each with its space

    const auto streamed = post(sim.port, "/v1/responses", R"({"input":"one","max_output_tokens":3,"stream":true})");
    BOOST_TEST_REQUIRE(streamed.status == 200, streamed.body);
    BOOST_TEST(streamed.body.find("event: response.created\n") == 0u);
    BOOST_TEST(streamed.body.find("event: response.completed\n") != std::string::npos);
    BOOST_TEST(streamed.body.find("[DONE]") == std::string::npos);

    const auto bad = post(sim.port, "/v1/responses", R"({"model":"openloop-sim"})");
    BOOST_TEST(bad.status == 400);
    BOOST_TEST(json::parse(bad.body).as_object().at("error").as_object().at("message").as_string() ==
               "input: field required");
    BOOST_TEST(get(sim.port, "/v1/responses").status == 405);
}

BOOST_AUTO_TEST_SUITE_END()
