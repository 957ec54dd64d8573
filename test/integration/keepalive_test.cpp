#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <cmath>
#include <fstream>

BOOST_AUTO_TEST_SUITE(it_keepalive)

// Real servers close idle keep-alive connections (uvicorn and cpp-httplib
// after 5 s). A request written on a connection the server has closed is the
// generator's mistake, never the server's failure: at low rates, longer than
// the server's keep-alive timeout, nothing may fail.
//
// The first two cases run a 5 s server timeout against the default 4 s idle
// budget scaled by a fifth: a 1 s timeout, a 0.8 s budget, rates and
// durations to match. Every gap keeps its place between budget and timeout,
// and the cases wait out a fifth of the idle time (they took 40 s and 54 s).

namespace json = boost::json;
using namespace test_http;

namespace {

// Calibration is not what these tests are about: no cache between them.
int run(std::vector<std::string> args, const std::string& log) {
    args.insert(args.begin(), {"--tokenizer-cache", "off"});
    return run_openloop(args, log);
}

// The server's keep-alive timeout, and the idle budget that stands for the default 4 s against 5 s.
constexpr double timeout_s = 1.0;
constexpr const char* budget = "800ms";

std::uint64_t count(const json::object& s, const char* key) { return s.at(key).to_number<std::uint64_t>(); }

// Constant arrivals for more than twice the keep-alive timeout, one gap
// between requests as long as it and two shorter than the budget: every
// request must complete, and nothing may have needed a retry that the idle
// budget should have prevented.
void low_rates_lose_nothing(const std::string& url, const std::string& model, const temp_dir& dir) {
    for (const double gap : {1.0, 0.4, 0.2}) {  // between requests, in timeouts
        const double rate = 1.0 / (gap * timeout_s);
        const std::string name = "rate-" + std::to_string(rate);
        const double duration = timeout_s * std::max(2.4, 3.0 * gap + 0.2);
        const int rc = run({"--target", url, "--model", model, "--arrival", "constant", "--rate", std::to_string(rate),
                            "--duration", std::to_string(duration) + "s", "--keep-alive-idle", budget, "--input-len",
                            "32", "--output-len", "8", "--ignore-eos", "--out", dir.file(name)},
                           dir.file(name + ".log"));
        BOOST_TEST_REQUIRE(rc == 0, "rate " << rate << ": " << slurp(dir.file(name + ".log")));
        const auto s = read_json(dir.file(name + "/summary.json"));
        BOOST_TEST_MESSAGE("rate " << rate << ": completed " << count(s, "completed") << ", retried "
                                   << count(s, "retried_stale"));
        BOOST_TEST(count(s, "failed") == 0u, "rate " << rate);
        BOOST_TEST(count(s, "completed") >= static_cast<std::uint64_t>(std::floor(rate * duration)), "rate " << rate);
        BOOST_TEST(count(s, "retried_stale") == 0u, "rate " << rate);
    }
}

}  // namespace

BOOST_AUTO_TEST_CASE(simulator_with_one_second_keep_alive) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--keep-alive-timeout",
                                                        std::to_string(timeout_s) + "s"});
    low_rates_lose_nothing(sim.url, "openloop-sim", dir);
}

BOOST_AUTO_TEST_CASE(uvicorn_with_vllm_keep_alive) {
    temp_dir dir;
    auto server = openloop::start_server({"/usr/bin/python3", std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0", "--timeout-keep-alive", std::to_string(timeout_s)},
                                         std::chrono::seconds(30));
    low_rates_lose_nothing(server.url, "vllm-uvicorn", dir);

    // Without an idle budget the client meets the server's own closes, right
    // at its timeout: detected before the write or retried, never lost.
    const int rc = run({"--target", server.url, "--model", "vllm-uvicorn", "--arrival", "constant", "--rate",
                        std::to_string(1.0 / timeout_s), "--duration", std::to_string(3.2 * timeout_s) + "s",
                        "--keep-alive-idle", "0", "--input-len", "32", "--output-len", "8", "--ignore-eos", "--out",
                        dir.file("no-budget")},
                       dir.file("no-budget.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("no-budget.log")));
    const auto s = read_json(dir.file("no-budget/summary.json"));
    BOOST_TEST(count(s, "failed") == 0u);
    BOOST_TEST(count(s, "completed") >= 3u);
}

// A server that closes a connection just as a request arrives on it (the
// race at the end of its idle timeout) answers nothing: the request goes
// again on a fresh connection, is counted as retried, and succeeds, with its
// connect time recorded and its clock still from the intended time.
BOOST_AUTO_TEST_CASE(stale_connections_are_retried_not_blamed) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--keep-alive-timeout", "0",
                                                  "--quirk", "close-stale"});
    const int rc = run({"--target", sim.url, "--arrival", "constant", "--rate", "0.5", "--duration", "8s",
                        "--keep-alive-idle", "30s", "--input-len", "32", "--output-len", "8", "--ignore-eos", "--out",
                        dir.file("stale")},
                       dir.file("stale.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("stale.log")));
    const auto s = read_json(dir.file("stale/summary.json"));
    BOOST_TEST(count(s, "failed") == 0u);
    BOOST_TEST(count(s, "completed") >= 4u);
    BOOST_TEST(count(s, "retried_stale") >= 3u);
    std::uint64_t retried = 0;
    for (const auto& r : read_jsonl(dir.file("stale/requests.jsonl"))) {
        BOOST_TEST(r.at("status").as_string() == "ok");
        if (!r.at("retried").as_bool()) continue;
        ++retried;
        // The fresh connection's set-up is inside the request's latency.
        BOOST_TEST(r.at("connect_ms").to_number<double>() > 0.0);
        BOOST_TEST(r.at("ttft_ms").to_number<double>() >= r.at("connect_ms").to_number<double>());
    }
    BOOST_TEST(retried == count(s, "retried_stale"));

    // With an idle budget below the server's threshold the race never comes.
    const int rc2 = run({"--target", sim.url, "--arrival", "constant", "--rate", "0.5", "--duration", "8s",
                         "--keep-alive-idle", "500ms", "--input-len", "32", "--output-len", "8", "--ignore-eos",
                         "--out", dir.file("fresh")},
                        dir.file("fresh.log"));
    BOOST_TEST_REQUIRE(rc2 == 0, slurp(dir.file("fresh.log")));
    const auto f = read_json(dir.file("fresh/summary.json"));
    BOOST_TEST(count(f, "failed") == 0u);
    BOOST_TEST(count(f, "retried_stale") == 0u);
}

// A server that closes every connection after an answer, whatever its
// Keep-Alive header says (llama.cpp's llama-server after each stream): at a
// rate that reuses connections, nothing fails and nothing is blamed on it.
BOOST_AUTO_TEST_CASE(server_closing_after_every_answer_loses_nothing) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--quirk", "close-after-completion"});
    const int rc = run({"--target", sim.url, "--rate", "50", "--num-requests", "300", "--input-len", "32",
                        "--output-len", "8", "--ignore-eos", "--out", dir.file("closing")},
                       dir.file("closing.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("closing.log")));
    const auto s = read_json(dir.file("closing/summary.json"));
    BOOST_TEST(count(s, "failed") == 0u);
    BOOST_TEST(count(s, "completed") == 300u);
    BOOST_TEST_MESSAGE("retried after close: " << count(s, "retried_stale"));
}

BOOST_AUTO_TEST_SUITE_END()
