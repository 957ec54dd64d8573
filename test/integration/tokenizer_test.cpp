#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <fstream>

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
                 const std::string& name, const std::string& cache) {
    std::vector<std::string> args{"--target", url, "--rate", "100", "--num-requests", "200", "--input-len",
                                  "uniform:12:900", "--output-len", "4", "--ignore-eos", "--tokenizer-cache", cache,
                                  "--out", dir.file(name)};
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
