#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "openloop/measure/event.hpp"
#include "openloop/cli/child_process.hpp"
#include "proc_events.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <thread>

BOOST_AUTO_TEST_SUITE(it_run)

namespace json = boost::json;
using namespace test_http;

namespace {

std::int64_t num(const json::value& v) { return v.is_null() ? -1 : v.to_number<std::int64_t>(); }

}  // namespace

// Token counts come from the server's usage, and the client's clocks agree
// with the simulator's own log.
BOOST_AUTO_TEST_CASE(client_agrees_with_server_log) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--rate", "10", "--num-requests", "60", "--input-len", "uniform:64:512",
                        "--output-len", "uniform:8:64", "--ignore-eos", "--out", dir.file("out")},
                       dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();

    std::map<std::string, json::object> server;
    for (auto& o : read_jsonl(sim_log)) server[std::string(o.at("request_id").as_string())] = o;
    auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(requests.size() == 60u);
    std::vector<double> ttft_diff, e2e_diff;
    for (const auto& r : requests) {
        BOOST_TEST(r.at("status").as_string() == "ok");
        const auto& s = server.at(std::string(r.at("id").as_string()));
        BOOST_TEST(num(r.at("output_tokens")) == num(s.at("completion_tokens")));
        BOOST_TEST(num(r.at("output_tokens")) == num(r.at("max_tokens")));
        BOOST_TEST(r.at("output_tokens_source").as_string() == "usage");
        BOOST_TEST(num(r.at("input_tokens")) == num(s.at("prompt_tokens")));
        const double client_ttft = double(num(r.at("first_token_ns")) - num(r.at("intended_ns")));
        const double server_ttft = double(num(s.at("first_token_ns")) - num(s.at("arrival_ns")));
        const double client_e2e = double(num(r.at("last_token_ns")) - num(r.at("intended_ns")));
        const double server_e2e = double(num(s.at("last_token_ns")) - num(s.at("arrival_ns")));
        ttft_diff.push_back(std::abs(client_ttft - server_ttft) / 1e6);
        e2e_diff.push_back(std::abs(client_e2e - server_e2e) / 1e6);
        // The client sees the first token after the server wrote it, never before.
        BOOST_TEST(num(r.at("first_token_ns")) >= num(s.at("first_token_ns")));
    }
    BOOST_TEST_MESSAGE("median |TTFT diff| " << median(ttft_diff) << " ms, median |E2E diff| " << median(e2e_diff) << " ms");
    // The 1 ms agreement is the release build's claim; a sanitized client and
    // server run several times slower on every read and write.
    const double agree_ms = openloop_test::sanitized ? 5.0 : 1.0;
    BOOST_TEST(median(ttft_diff) < agree_ms);
    BOOST_TEST(median(e2e_diff) < agree_ms);

    auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<std::int64_t>() == 60);
    std::int64_t out_tokens = 0, in_tokens = 0;
    for (const auto& r : requests) {
        out_tokens += num(r.at("output_tokens"));
        in_tokens += num(r.at("input_tokens"));
    }
    BOOST_TEST(summary.at("total_output_tokens").to_number<std::int64_t>() == out_tokens);
    BOOST_TEST(summary.at("total_input_tokens").to_number<std::int64_t>() == in_tokens);
    BOOST_TEST(summary.at("output_tokens_source").as_string() == "usage");
    BOOST_TEST(summary.at("itl_source").as_string() == "tokens");
    BOOST_TEST(summary.at("validity").as_object().at("valid").as_bool());
}

// Every injected fault ends in its error class, and the counts add up.
BOOST_AUTO_TEST_CASE(faults_end_in_their_error_classes) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--seed", "3", "--log", sim_log,
                                                  "--fault-429", "0.05", "--fault-500", "0.05", "--fault-503", "0.05",
                                                  "--fault-disconnect", "0.05", "--fault-bad-chunk", "0.05",
                                                  "--fault-stall", "0.05", "--stall-ms", "400",
                                                  "--fault-slow-first-byte", "0.05", "--slow-first-byte-ms", "400"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "100", "--num-requests", "400", "--input-len", "32",
                        "--output-len", "16", "--ignore-eos", "--idle-timeout", "150ms", "--first-token-timeout",
                        "150ms", "--max-inflight", "1000", "--out", dir.file("out")},
                       dir.file("run.log"));
    // A third of the requests fail: over the default --max-error-rate, exit 4.
    BOOST_TEST_REQUIRE(rc == 4, slurp(dir.file("run.log")));
    // The table's first line (after what setup printed on stderr) names the breach.
    BOOST_TEST(slurp(dir.file("run.log")).find("\nINVALID: error rate") != std::string::npos, slurp(dir.file("run.log")));
    // Requests the client gave up on (timeouts) are logged when the server ends them: stopped
    // once it has logged all 400.
    BOOST_TEST(proc_events::wait_until([&] { return proc_events::lines_in(sim_log) >= 400; }, std::chrono::seconds(30)),
               proc_events::lines_in(sim_log) << " of 400 requests in the simulator's log after 30 s");
    sim.process.stop();

    std::map<std::string, std::string> fault_of;
    for (auto& o : read_jsonl(sim_log)) fault_of[std::string(o.at("request_id").as_string())] = o.at("fault").as_string().c_str();
    const std::map<std::string, std::string> expected_class = {
        {"http_429", "http_4xx"}, {"http_500", "http_5xx"}, {"http_503", "http_5xx"},
        {"disconnect", "stream_truncated"}, {"bad_chunk", "bad_chunk"}, {"stall", "timeout_idle"},
        {"slow_first_byte", "timeout_first_token"}};
    auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST(requests.size() == 400u);
    std::map<std::string, int> by_class;
    int ok = 0, failed = 0;
    for (const auto& r : requests) {
        const std::string id(r.at("id").as_string());
        BOOST_TEST_REQUIRE(fault_of.count(id) == 1u, "the server never saw " << id);
        const std::string f = fault_of[id];
        if (f == "none") {
            BOOST_TEST(r.at("status").as_string() == "ok", id);
            ++ok;
        } else {
            BOOST_TEST(r.at("status").as_string() == "failed", id);
            BOOST_TEST(r.at("error").as_string() == expected_class.at(f), id << " with fault " << f);
            ++by_class[std::string(r.at("error").as_string())];
            ++failed;
        }
        if (f == "http_429") BOOST_TEST(num(r.at("http_status")) == 429);
    }
    auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<int>() == ok);
    BOOST_TEST(summary.at("failed").to_number<int>() == failed);
    BOOST_TEST(summary.at("refused").to_number<int>() == 0);
    BOOST_TEST(ok + failed == 400);
    const auto& errors = summary.at("errors").as_object();
    for (const auto& [cls, n] : by_class) BOOST_TEST(errors.at(cls).to_number<int>() == n, cls);
    BOOST_TEST(by_class.size() == 6u);  // every class appeared
}

// The --max-inflight cap refuses arrivals, counts them, and never drops them silently.
BOOST_AUTO_TEST_CASE(refused_by_cap_are_counted) {
    temp_dir dir;
    const int rc = run_openloop({"--target", "sim:cpu-small", "--rate", "40", "--num-requests", "40", "--max-inflight", "3",
                        "--input-len", "16", "--output-len", "16", "--ignore-eos", "--out", dir.file("out")},
                       dir.file("run.log"));
    BOOST_TEST_REQUIRE((rc == 0 || rc == 3), slurp(dir.file("run.log")));
    auto summary = read_json(dir.file("out/summary.json"));
    const auto completed = summary.at("completed").to_number<int>();
    const auto failed = summary.at("failed").to_number<int>();
    const auto refused = summary.at("refused").to_number<int>();
    BOOST_TEST(refused > 0);
    BOOST_TEST(completed + failed + refused == 40);
}

BOOST_AUTO_TEST_CASE(closed_loop_concurrency) {
    temp_dir dir;
    const int rc = run_openloop({"--target", "sim:firehose", "--concurrency", "4", "--num-requests", "50", "--input-len", "16",
                        "--output-len", "8", "--ignore-eos", "--endpoint", "completions", "--out", dir.file("out")},
                       dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<int>() == 50);
    BOOST_TEST(summary.at("mode").as_string() == "closed-loop");
    BOOST_TEST(summary.at("total_output_tokens").to_number<int>() == 400);
}

BOOST_AUTO_TEST_CASE(tls_with_and_without_the_ca) {
    temp_dir dir;
    std::string cert, key;
    BOOST_TEST_REQUIRE(make_self_signed(dir, cert, key));
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--tls-cert", cert, "--tls-key", key});
    int rc = run_openloop({"--target", sim.url, "--model", "openloop-sim", "--ca-file", cert, "--rate", "20",
                  "--num-requests", "20", "--input-len", "16", "--output-len", "8", "--ignore-eos", "--out",
                  dir.file("ok")},
                 dir.file("ok.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("ok.log")));
    BOOST_TEST(read_json(dir.file("ok/summary.json")).at("completed").to_number<int>() == 20);

    rc = run_openloop({"--target", sim.url, "--model", "openloop-sim", "--rate", "20", "--num-requests", "5", "--input-len", "16",
              "--output-len", "8", "--out", dir.file("bad")},
             dir.file("bad.log"));
    BOOST_TEST(rc == 4);  // every request failed
    auto bad = read_json(dir.file("bad/summary.json"));
    BOOST_TEST(bad.at("completed").to_number<int>() == 0);
    BOOST_TEST(bad.at("errors").as_object().at("tls").to_number<int>() == 5);
    BOOST_TEST(slurp(dir.file("bad.log")).find("tls") != std::string::npos);
}

// Ctrl-C stops sending, lets in-flight requests finish, and writes partial results.
BOOST_AUTO_TEST_CASE(sigint_writes_partial_results) {
    temp_dir dir;
    const unsigned short metrics = free_port();
    openloop::child_process p({openloop_test::bin, "run", "--target", "sim:cpu-small", "--rate", "4", "--duration", "60s",
                               "--input-len", "32", "--output-len", "16", "--ignore-eos", "--progress", "off",
                               "--metrics-listen", "127.0.0.1:" + std::to_string(metrics), "--out", dir.file("out")});
    // Interrupted once five requests completed, as its live metrics count them, however long
    // a loaded machine took to start the run and its simulator.
    BOOST_TEST_REQUIRE(proc_events::wait_until(
        [&] { return scraped(metrics, "openloop_requests_completed_total") >= 5 || !p.running(); },
        std::chrono::seconds(60), std::chrono::milliseconds(100)));
    BOOST_TEST_REQUIRE(p.running());
    kill(p.pid(), SIGINT);
    const auto t0 = std::chrono::steady_clock::now();
    while (p.running() && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(20))
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    BOOST_TEST_REQUIRE(!p.running());
    BOOST_TEST(p.stop() == 130);
    auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("partial").as_bool());
    BOOST_TEST(!summary.at("validity").as_object().at("valid").as_bool());
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST(requests.size() >= 5u);
    BOOST_TEST(summary.at("completed").to_number<std::size_t>() == requests.size());
}

// --out may be a directory used before, or one another user can write to:
// a symlink already there under a result file's name (or the temporary name
// a file is written under before its rename) is replaced by the file, never
// written through.
BOOST_AUTO_TEST_CASE(symlinks_in_out_are_replaced_not_written_through) {
    temp_dir dir;
    const std::string out = dir.file("out");
    std::filesystem::create_directories(out);
    std::filesystem::create_directories(dir.file("elsewhere"));
    const std::vector<std::string> names{"requests.jsonl", "timeseries.csv", "report.html",   "summary.json",
                                         "run.json",       "summary.json.tmp", "run.json.tmp", "report.html.tmp"};
    for (const std::string& name : names) {
        const std::string victim = dir.file("elsewhere/" + name);
        std::ofstream(victim) << "not openloop's: " << name << "\n";
        std::filesystem::create_symlink(victim, out + "/" + name);
    }
    const int rc = run_openloop({"--rate", "20", "--num-requests", "5", "--input-len", "16", "--output-len", "4", "--out", out},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    for (const std::string& name : names) {
        BOOST_TEST(slurp(dir.file("elsewhere/" + name)) == "not openloop's: " + name + "\n", name << " written through its symlink");
        const auto status = std::filesystem::symlink_status(out + "/" + name);
        const bool temporary = name.ends_with(".tmp");
        BOOST_TEST((temporary ? !std::filesystem::exists(status) : std::filesystem::is_regular_file(status)),
                   name << (temporary ? " left behind" : " is not a regular file"));
    }
    BOOST_TEST(read_jsonl(out + "/requests.jsonl").size() == 5u);
    BOOST_TEST(read_json(out + "/summary.json").at("completed").to_number<int>() == 5);
    BOOST_TEST(slurp(out + "/report.html").find("<html") != std::string::npos);
}

// `openloop report` on a finished run whose summary.json is garbage: the
// summary is rebuilt from requests.jsonl (the garbage kept aside, the reason
// said), never declared to "stand"; with nothing to rebuild it from, exit 2.
BOOST_AUTO_TEST_CASE(report_rebuilds_an_unreadable_summary) {
    temp_dir dir;
    const std::string out = dir.file("out");
    BOOST_TEST_REQUIRE(run_openloop({"--rate", "4", "--duration", "2s", "--input-len", "32", "--output-len", "8", "--out", out},
                                    dir.file("run.log")) == 0,
                       slurp(dir.file("run.log")));
    const std::int64_t completed = read_json(out + "/summary.json").at("completed").as_int64();
    const std::string garbage = "{\"validity\": {\"valid\": tr\n\x01\x02 not json";
    std::ofstream(out + "/summary.json", std::ios::binary | std::ios::trunc) << garbage;

    int rc = openloop_cli({"report", out}, dir.file("report.log"));
    std::string log = slurp(dir.file("report.log"));
    BOOST_TEST(rc == 0, log);
    BOOST_TEST(log.find("stands") == std::string::npos, log);
    BOOST_TEST(log.find("openloop report: " + out + "/summary.json is unreadable (not JSON: ") != std::string::npos, log);
    BOOST_TEST(log.find("): kept as " + out + "/summary.json.unreadable; rebuilding it from requests.jsonl") !=
                   std::string::npos,
               log);
    BOOST_TEST(log.find("rebuilt in place of an unreadable summary: " + out + "/summary.json") != std::string::npos, log);
    BOOST_TEST(slurp(out + "/summary.json.unreadable") == garbage);
    const json::object rebuilt = read_json(out + "/summary.json");
    BOOST_TEST(rebuilt.at("completed").as_int64() == completed);
    BOOST_TEST(std::string(rebuilt.at("rebuilt").at("unreadable_summary").as_string()).rfind("not JSON: ", 0) == 0u);

    // A summary whose histogram does not read back (its counts sum past 2^64) is unreadable too:
    // set aside and rebuilt, report.html drawn from the rebuilt one.
    json::object overflowing = rebuilt;
    overflowing["histograms"].as_object()["ttft"].as_object()["counts"] =
        json::array{std::uint64_t{1} << 63, std::uint64_t{1} << 63, 1};
    std::ofstream(out + "/summary.json", std::ios::trunc) << json::serialize(overflowing);
    rc = openloop_cli({"report", out, "--html"}, dir.file("overflow.log"));
    log = slurp(dir.file("overflow.log"));
    BOOST_TEST(rc == 0, log);
    BOOST_TEST(log.find(out + "/summary.json is unreadable (histograms.ttft: histogram JSON: field 'counts' sums past 2^64)") !=
                   std::string::npos,
               log);
    BOOST_TEST(read_json(out + "/summary.json").at("completed").as_int64() == completed);
    BOOST_TEST(log.find("report: " + out + "/report.html") != std::string::npos, log);

    // A summary that is JSON but no openloop summary is unreadable too; without run.json it is refused.
    std::ofstream(out + "/summary.json", std::ios::trunc) << "[1, 2, 3]\n";
    std::filesystem::remove(out + "/run.json");
    rc = openloop_cli({"report", out}, dir.file("refused.log"));
    log = slurp(dir.file("refused.log"));
    BOOST_TEST(rc == 2, log);
    BOOST_TEST(log.find("report: " + out + "/run.json is missing: not an openloop result directory; and " + out +
                        "/summary.json is unreadable (not a JSON object): nothing to rebuild it from") != std::string::npos,
               log);
}

BOOST_AUTO_TEST_SUITE_END()
