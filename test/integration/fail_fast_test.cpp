#include <boost/test/unit_test.hpp>

// A run or sweep whose every request the server refuses the same way (a
// wrong model name, nothing listening) stops within seconds with the cause,
// and a 200 that is not a stream is not a success. Against the simulator
// and a closed port on 127.0.0.1.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <filesystem>

BOOST_AUTO_TEST_SUITE(it_fail_fast)

namespace json = boost::json;
using namespace test_http;
using steady = std::chrono::steady_clock;

namespace {

double since(steady::time_point t) { return std::chrono::duration<double>(steady::now() - t).count(); }

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The log's line that starts the table (the progress and warnings come before it).
std::string verdict_line(const std::string& log) {
    for (const char* start : {"\nVALID", "\nINVALID"})
        if (const auto at = log.find(start); at != std::string::npos) return first_line(log.substr(at + 1));
    return first_line(log);
}

const json::object* messages_for(const json::object& summary, std::string_view cls, int status) {
    for (const auto& v : summary.at("error_messages").as_array()) {
        const auto& o = v.as_object();
        if (o.at("class").as_string() == cls && o.at("status").to_number<int>() == status) return &o;
    }
    return nullptr;
}

// A port on 127.0.0.1 where nothing listens: bound once, then released.
unsigned short closed_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    return a.local_endpoint().port();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_wrong_model_stops_the_run_with_the_servers_message) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const auto begin = steady::now();
    const int rc = run_openloop({"--target", sim.url, "--model", "no-such-model", "--rate", "20", "--duration", "120s",
                                 "--input-len", "16", "--output-len", "8", "--out", dir.file("out")},
                                dir.file("run.log"));
    const double seconds = since(begin);
    const std::string log = slurp(dir.file("run.log"));
    BOOST_TEST(rc == 3, log);
    BOOST_TEST(seconds < 20.0);  // 8 requests at 20/s, not the 120 s asked for
    BOOST_TEST(log.find("stopping early: the first 8 requests all failed with HTTP 404: \"The model `no-such-model` "
                        "does not exist.\"") != std::string::npos, log);
    BOOST_TEST(verdict_line(log).find("INVALID") == 0u, log);
    BOOST_TEST(verdict_line(log).find("stopping early") != std::string::npos, log);

    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("stopped_early").as_bool());
    BOOST_TEST(summary.at("partial").as_bool());
    BOOST_TEST(std::string(summary.at("partial_reason").as_string()).find("HTTP 404") != std::string::npos);
    const auto* m = messages_for(summary, "http_4xx", 404);
    BOOST_TEST_REQUIRE(m);
    BOOST_TEST(m->at("count").to_number<int>() >= 8);
    BOOST_TEST(m->at("messages").as_array().size() == 1u);
    BOOST_TEST(m->at("messages").as_array()[0].as_string() == "The model `no-such-model` does not exist.");
    BOOST_TEST(log.find("error messages") != std::string::npos);  // the table shows them too
}

BOOST_AUTO_TEST_CASE(a_closed_port_stops_the_run_naming_address_and_errno) {
    temp_dir dir;
    const std::string port = std::to_string(closed_port());
    const auto begin = steady::now();
    const int rc = run_openloop({"--target", "http://127.0.0.1:" + port, "--model", "m", "--tokenizer", "words",
                                 "--rate", "50", "--duration", "120s", "--out", dir.file("out")},
                                dir.file("run.log"));
    const std::string log = slurp(dir.file("run.log"));
    BOOST_TEST(rc == 3, log);
    BOOST_TEST(since(begin) < 20.0);
    const std::string cause = "connect 127.0.0.1:" + port + ": Connection refused";
    BOOST_TEST(log.find("stopping early: the first 8 requests all failed with connect: \"" + cause + "\"") !=
               std::string::npos, log);
    const auto summary = read_json(dir.file("out/summary.json"));
    const auto* m = messages_for(summary, "connect", 0);
    BOOST_TEST_REQUIRE(m);
    BOOST_TEST(m->at("messages").as_array()[0].as_string() == cause);
}

BOOST_AUTO_TEST_CASE(a_sweep_stops_at_the_first_stage_that_fails_fast) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const auto begin = steady::now();
    const std::string cmd = std::string(openloop_test::bin) + " sweep --progress off --target " + sim.url +
                            " --model wrong --rates 5,10,20 --stage-duration 30s --input-len 16 --output-len 8 --out " +
                            dir.file("sweep") + " > " + dir.file("sweep.log") + " 2>&1";
    const int status = std::system(cmd.c_str());
    const int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128;
    const std::string log = slurp(dir.file("sweep.log"));
    BOOST_TEST(rc == 3, log);
    BOOST_TEST(since(begin) < 30.0);  // three stages of 30 s each otherwise
    BOOST_TEST(log.find("does not exist") != std::string::npos, log);
    int stages = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir.file("sweep")))
        if (e.path().filename().string().rfind("stage-", 0) == 0) ++stages;
    BOOST_TEST(stages == 1);
}

BOOST_AUTO_TEST_CASE(a_200_login_page_is_no_content_and_says_so_first) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--quirk", "html-200"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "10", "--input-len", "16",
                                 "--output-len", "8", "--out", dir.file("out")},
                                dir.file("run.log"));
    const std::string log = slurp(dir.file("run.log"));
    BOOST_TEST(rc != 0, log);
    BOOST_TEST(verdict_line(log) ==
                   "INVALID: every request ended in no_content: the server answered 200 with text/html; "
                   "charset=utf-8, not an SSE stream: <!DOCTYPE html> <html><head><title>Sign in</title></head>"
                   "<body>Sign in to continue</body></html>",
               log);
    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<int>() == 0);
    BOOST_TEST(summary.at("errors").as_object().at("no_content").to_number<int>() == 10);
}

BOOST_AUTO_TEST_CASE(a_json_completion_that_ignored_stream_is_no_content) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--quirk", "ignore-stream"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "10", "--input-len", "16",
                                 "--output-len", "8", "--out", dir.file("out")},
                                dir.file("run.log"));
    const std::string log = slurp(dir.file("run.log"));
    BOOST_TEST(rc != 0, log);
    BOOST_TEST(verdict_line(log).find("INVALID: every request ended in no_content: the server answered 200 with "
                                      "application/json, not an SSE stream") == 0u, log);
    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("errors").as_object().at("no_content").to_number<int>() == 10);
}

BOOST_AUTO_TEST_CASE(a_message_quoting_the_api_key_has_it_redacted) {
    // The simulator quotes the model name back; named like the key, it stands
    // for a server that quotes the key it was sent.
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const std::string key = "sk-test-0123456789abcdef";
    setenv("OPENLOOP_TEST_KEY", key.c_str(), 1);
    const int rc = run_openloop({"--target", sim.url, "--api-key-env", "OPENLOOP_TEST_KEY", "--model", key, "--rate", "20",
                                 "--duration", "60s", "--input-len", "16", "--output-len", "8", "--out", dir.file("out")},
                                dir.file("run.log"));
    unsetenv("OPENLOOP_TEST_KEY");
    const std::string log = slurp(dir.file("run.log"));
    BOOST_TEST(rc == 3, log);
    BOOST_TEST(log.find("The model `[redacted]` does not exist.") != std::string::npos, log);
    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(messages_for(summary, "http_4xx", 404)->at("messages").as_array()[0].as_string() ==
               "The model `[redacted]` does not exist.");
}

BOOST_AUTO_TEST_SUITE_END()
