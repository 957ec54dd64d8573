#include <boost/test/unit_test.hpp>

// A server whose continuous usage jumps to completion_tokens 2^31 - 1 once
// cost ~5 s of CPU per request and was reported as 1.8e12 tok/s, VALID. Now
// the run ends promptly, counts the requests bad_usage and counts their
// output by content chunks.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>

BOOST_AUTO_TEST_SUITE(it_absurd_usage)

namespace json = boost::json;
using namespace test_http;

BOOST_AUTO_TEST_CASE(absurd_continuous_usage_is_not_believed) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--quirk", "absurd-usage"});
    const int n = 20, max_tokens = 16;
    const auto begin = std::chrono::steady_clock::now();
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", std::to_string(n),
                                 "--input-len", "32", "--output-len", std::to_string(max_tokens), "--ignore-eos",
                                 "--out", dir.file("out")},
                                dir.file("run.log"));
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    // 20 requests at 20/s: about a second; a per-token loop took ~5 s each.
    BOOST_TEST(seconds < 15.0);

    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<std::int64_t>() == n);
    BOOST_TEST(summary.at("bad_usage").to_number<std::int64_t>() == n);
    BOOST_TEST(summary.at("output_tokens_source").as_string() == "chunks");
    BOOST_TEST(summary.at("total_output_tokens").to_number<std::int64_t>() <= n * max_tokens);
    BOOST_TEST(summary.at("output_throughput").to_number<double>() < 1e6);
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        BOOST_TEST(r.at("status").as_string() == "ok");
        BOOST_TEST(r.at("bad_usage").as_bool());
        BOOST_TEST(r.at("output_tokens_source").as_string() == "chunks");
        BOOST_TEST(r.at("output_tokens").to_number<std::int64_t>() <= max_tokens);
    }
    BOOST_TEST(slurp(dir.file("run.log")).find("bad usage") != std::string::npos);  // the table
}

BOOST_AUTO_TEST_SUITE_END()
