#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <fstream>

BOOST_AUTO_TEST_SUITE(it_deviation)

// Real servers deviate from the OpenAI stream shape. The simulator reproduces
// each deviation (--quirk) and the client must count tokens and time exactly
// as it does for the canonical shape.

namespace json = boost::json;
using namespace test_http;

namespace {

struct outcome {
    json::object summary;
    std::vector<json::object> requests;
    std::string log;
};

outcome run_against(const std::vector<std::string>& sim_args, const std::vector<std::string>& run_args) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, sim_args);
    std::string cmd = std::string(openloop_test::bin) + " run --progress off --lag-bound 250ms --target " + sim.url +
                      " --rate 50 --num-requests 20 --input-len 32 --output-len 12 --ignore-eos --out " + dir.file("out");
    for (const auto& a : run_args) cmd += " '" + a + "'";
    cmd += " > " + dir.file("log") + " 2>&1";
    const int rc = std::system(cmd.c_str());
    outcome o;
    std::ifstream log(dir.file("log"));
    o.log.assign(std::istreambuf_iterator<char>(log), {});
    BOOST_TEST_REQUIRE(WIFEXITED(rc), o.log);
    std::ifstream in(dir.file("out/summary.json"));
    std::string text((std::istreambuf_iterator<char>(in)), {});
    BOOST_TEST_REQUIRE(!text.empty(), o.log);
    o.summary = json::parse(text).as_object();
    std::ifstream rq(dir.file("out/requests.jsonl"));
    std::string line;
    while (std::getline(rq, line)) o.requests.push_back(json::parse(line).as_object());
    return o;
}

void expect_exact(const outcome& o, const std::string& output_source, const std::string& itl_source) {
    BOOST_TEST(o.summary.at("completed").to_number<int>() == 20, o.log);
    BOOST_TEST(o.summary.at("failed").to_number<int>() == 0);
    BOOST_TEST(o.summary.at("total_output_tokens").to_number<int>() == 20 * 12);
    BOOST_TEST(o.summary.at("output_tokens_source").as_string() == output_source);
    BOOST_TEST(o.summary.at("itl_source").as_string() == itl_source);
    BOOST_TEST(o.requests.size() == 20u);
    for (const auto& r : o.requests) {
        // Only content-carrying chunks count: not role, empty-choices, usage or comments.
        BOOST_TEST(r.at("chunks").to_number<int>() == 12);
        BOOST_TEST(r.at("output_tokens").to_number<int>() == 12);
        BOOST_TEST(r.at("ttft_ms").to_number<double>() > 0);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(canonical_vllm_shape) {
    expect_exact(run_against({"--preset", "firehose"}, {}), "usage", "tokens");
}

BOOST_AUTO_TEST_CASE(no_role_chunk) {
    expect_exact(run_against({"--preset", "firehose", "--quirk", "no-role-chunk"}, {}), "usage", "tokens");
}

BOOST_AUTO_TEST_CASE(usage_only_inside_the_last_content_chunk) {
    // Without continuous usage the last content chunk is the only one with usage:
    // its count is the total, not the tokens of that chunk.
    expect_exact(run_against({"--preset", "firehose", "--quirk", "usage-in-last-chunk"}, {"--no-continuous-usage"}),
                 "usage", "chunks");
}

BOOST_AUTO_TEST_CASE(usage_sent_without_being_asked) {
    expect_exact(run_against({"--preset", "firehose", "--quirk", "always-usage", "--quirk", "ignore-stream-options"}, {}),
                 "usage", "chunks");
}

BOOST_AUTO_TEST_CASE(stream_options_ignored_means_estimated_counts) {
    expect_exact(run_against({"--preset", "firehose", "--quirk", "ignore-stream-options"}, {}), "chunks", "chunks");
}

BOOST_AUTO_TEST_CASE(keepalive_comments_empty_choices_and_no_done) {
    expect_exact(run_against({"--preset", "firehose", "--quirk", "keepalive-comments", "--quirk", "empty-choices-chunk",
                              "--quirk", "no-done"},
                             {}),
                 "usage", "tokens");
}

BOOST_AUTO_TEST_CASE(bad_request_status_is_classified_either_way) {
    const auto as_400 = run_against({"--preset", "firehose"}, {"--extra-body", R"({"n": 2})"});
    BOOST_TEST(as_400.summary.at("completed").to_number<int>() == 0);
    BOOST_TEST(as_400.summary.at("errors").as_object().at("http_4xx").to_number<int>() == 20);
    const auto as_500 = run_against({"--preset", "firehose", "--quirk", "error-500"}, {"--extra-body", R"({"n": 2})"});
    BOOST_TEST(as_500.summary.at("errors").as_object().at("http_5xx").to_number<int>() == 20);
    BOOST_TEST(as_500.summary.at("http_status").as_object().at("500").to_number<int>() == 20);
}

BOOST_AUTO_TEST_SUITE_END()
