#include <boost/test/unit_test.hpp>

// A soak's records survive what ends soaks: kill -9 of openloop itself loses
// at most the window it was in, and `openloop report` rebuilds the summary
// from the request log; a server that restarts is a few windows of
// connection errors, then recovery, and the soak goes on to its end.

#include "openloop/cli/child_process.hpp"
#include "proc_events.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_soak_crash)

namespace json = boost::json;
using namespace test_http;
using namespace std::chrono_literals;

namespace {

std::size_t count_if_status(const std::vector<json::object>& lines, std::string_view status, bool warmup = false) {
    return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [&](const json::object& l) {
        return l.at("status").as_string() == status && l.at("warmup").as_bool() == warmup;
    }));
}

}  // namespace

BOOST_AUTO_TEST_CASE(kill_9_loses_at_most_the_last_window_and_report_rebuilds_the_summary) {
    temp_dir dir;
    const std::string out = dir.file("out");
    openloop::child_process soak({openloop_test::bin, "soak", "--target", "sim:cpu-small", "--rate", "20", "--duration", "120s",
                                  "--interval", "1s", "--warmup", "1s", "--input-len", "16", "--output-len", "8",
                                  "--progress", "off", "--out", out});
    // Killed once five windows are written, however long a loaded machine took
    // to start the soak (bounded: 60 s). Watched every 100 ms, 1 s windows
    // flushed as each closes reach the file one at a time, two when a poll or a
    // flush came late; windows held back for a later flush arrive as a larger
    // step, and a kill loses them.
    const auto written = [&] {
        const std::string text = slurp(out + "/windows.jsonl");
        return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
    };
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    std::size_t before = 0, largest_step = 0;
    while (before < 5 && soak.running() && std::chrono::steady_clock::now() < deadline) {
        const std::size_t now = written();
        largest_step = std::max(largest_step, now - before);
        before = now;
        if (before < 5) std::this_thread::sleep_for(100ms);
    }
    BOOST_TEST_REQUIRE(soak.running());
    BOOST_TEST_REQUIRE(before >= 5u);
    BOOST_TEST(largest_step <= 2u, "windows reached the file up to " << largest_step << " at once");
    ::kill(soak.pid(), SIGKILL);
    BOOST_TEST(soak.stop() == 128 + SIGKILL);
    BOOST_TEST(!std::filesystem::exists(out + "/summary.json"));

    // Every window written before the kill is still there.
    const auto windows = read_jsonl(out + "/windows.jsonl");
    BOOST_TEST(windows.size() >= before);

    const int rc = openloop_cli({"report", out}, dir.file("report.log"));
    const std::string log = slurp(dir.file("report.log"));
    BOOST_TEST(rc == 0, log);
    BOOST_TEST(log.find("rebuilt from a run that did not finish") != std::string::npos, log);
    const auto summary = read_json(out + "/summary.json");
    // kill -9 can tear the last line: the rebuild counts it apart, never as a request.
    const std::string text = slurp(out + "/requests.jsonl");
    std::vector<json::object> lines;
    std::size_t torn = 0;
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t nl = text.find('\n', at);
        const std::string line = text.substr(at, nl == std::string::npos ? std::string::npos : nl - at);
        at = nl == std::string::npos ? text.size() : nl + 1;
        boost::system::error_code ec;
        auto v = json::parse(line, ec);
        if (ec) ++torn; else lines.push_back(v.as_object());
    }
    BOOST_TEST(lines.size() > 50u);
    BOOST_TEST(summary.at("rebuilt").at("lines").to_number<std::size_t>() == lines.size());
    BOOST_TEST(summary.at("rebuilt").at("bad_lines").to_number<std::size_t>() == torn);
    const std::size_t ok = count_if_status(lines, "ok"), failed = count_if_status(lines, "failed");
    BOOST_TEST(summary.at("completed").to_number<std::size_t>() == ok);
    BOOST_TEST(summary.at("failed").to_number<std::size_t>() == failed);
    BOOST_TEST(summary.at("started").to_number<std::size_t>() == ok + failed + count_if_status(lines, "unfinished"));
    BOOST_TEST(summary.at("partial").as_bool());
    BOOST_TEST(summary.at("soak").at("windows").to_number<std::size_t>() == windows.size());
    BOOST_TEST(summary.at("histograms").at("ttft").at("count").to_number<std::size_t>() == ok);

    // A finished directory is left alone.
    BOOST_TEST(openloop_cli({"report", out}, dir.file("again.log")) == 0);
    BOOST_TEST(slurp(dir.file("again.log")).find("is a finished run") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_server_restart_is_a_window_of_errors_then_recovery) {
    temp_dir dir;
    const auto port = std::to_string(free_port());
    const std::vector<std::string> sim_args{openloop_test::bin, "sim", "--preset", "cpu-small", "--port", port};
    auto sim = std::make_unique<openloop::child_process>(sim_args);
    BOOST_TEST_REQUIRE(sim->read_line(10s).find("listening on") != std::string::npos);
    openloop::child_process soak({openloop_test::bin, "soak", "--target", "http://127.0.0.1:" + port, "--rate", "10",
                                  "--duration", "24s", "--interval", "2s", "--input-len", "16", "--output-len", "8",
                                  "--connect-timeout", "1s", "--progress", "off", "--lag-bound", "250ms", "--out",
                                  dir.file("out")});
    // The server dies once three healthy windows are written, and comes back once a window has
    // counted the connects it refused: what the soak saw, not what a loaded machine's clock
    // guessed it saw (the soak's own start takes what it takes).
    const std::string windows_file = dir.file("out/windows.jsonl");
    BOOST_TEST_REQUIRE(proc_events::wait_until([&] { return proc_events::lines_in(windows_file) >= 3 || !soak.running(); },
                                               60s, 100ms),
                       "three windows were not written in 60 s");
    ::kill(sim->pid(), SIGKILL);
    sim->stop();
    BOOST_TEST_REQUIRE(proc_events::wait_until(
                           [&] {
                               const std::string text = slurp(windows_file);
                               return text.find("\"connect\"", 0) != std::string::npos || !soak.running();
                           },
                           60s, 100ms),
                       "no window counted a refused connect in 60 s");
    sim = std::make_unique<openloop::child_process>(sim_args);
    BOOST_TEST_REQUIRE(sim->read_line(10s).find("listening on") != std::string::npos);
    // The soak runs to its own end (24 s and the drain), however many requests failed.
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    while (soak.running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(200ms);
    BOOST_TEST_REQUIRE(!soak.running());

    const auto windows = read_jsonl(dir.file("out/windows.jsonl"));
    BOOST_TEST_REQUIRE(windows.size() >= 12u);
    BOOST_TEST(windows.back().at("t_end_s").to_number<double>() >= 23.0);
    std::size_t errors_at = 0, recovered_at = 0;
    for (std::size_t i = 0; i < windows.size(); ++i) {
        const auto& w = windows[i];
        if (errors_at == 0 && w.at("errors").as_object().contains("connect")) errors_at = i;
        if (errors_at != 0 && recovered_at == 0 && w.at("failed").to_number<int>() == 0 &&
            w.at("completed").to_number<int>() > 10)
            recovered_at = i;
    }
    BOOST_TEST(windows[1].at("failed").to_number<int>() == 0);  // healthy before the kill
    BOOST_TEST(errors_at >= 2u);
    BOOST_TEST(errors_at <= 5u);
    BOOST_TEST(recovered_at > errors_at);
    BOOST_TEST(recovered_at + 2 <= windows.size());
    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("errors").at("connect").to_number<int>() > 0);
}

BOOST_AUTO_TEST_CASE(a_run_serves_its_live_metrics_while_it_runs) {
    temp_dir dir;
    const unsigned short port = free_port();
    openloop::child_process run({openloop_test::bin, "run", "--target", "sim:cpu-small", "--rate", "20", "--duration", "16s",
                                 "--input-len", "16", "--output-len", "8", "--progress", "off", "--lag-bound", "250ms",
                                 "--metrics-listen", "127.0.0.1:" + std::to_string(port), "--out", dir.file("out")});
    // The first 10 s window closes 10 s into the run; the counters are live from the first second.
    // Asked for until the window is there, not after a fixed sleep: the run's own start (a
    // sanitized binary on a loaded machine) is not the test's to time, and 6 s are left after it.
    test_http::response r;
    const auto window_due = std::chrono::steady_clock::now() + 30s;
    do {
        std::this_thread::sleep_for(250ms);
        r = get(port, "/metrics");
    } while (std::chrono::steady_clock::now() < window_due &&
             (r.status != 200 || r.body.find("\nopenloop_window_seconds ") == std::string::npos));
    BOOST_TEST_REQUIRE(r.status == 200, r.body);
    BOOST_TEST(r.headers.at("Content-Type").find("text/plain; version=0.0.4") == 0u);
    const auto value = [&](const std::string& name) {
        const auto at = r.body.find("\n" + name + " ");
        BOOST_TEST_REQUIRE(at != std::string::npos, name << " missing in\n" << r.body);
        return std::stod(r.body.substr(at + name.size() + 2));
    };
    BOOST_TEST(value("openloop_requests_started_total") > 150);  // ~20/s for 10 s
    BOOST_TEST(value("openloop_requests_completed_total") > 150);
    BOOST_TEST(value("openloop_ttft_seconds_count") == value("openloop_requests_completed_total"));
    BOOST_TEST(value("openloop_window_seconds") > 9.0);
    BOOST_TEST(value("openloop_window_ttft_seconds{quantile=\"0.99\"}") > 0.0);
    BOOST_TEST(value("openloop_generator_resident_memory_bytes") > 1e6);
    const auto deadline = std::chrono::steady_clock::now() + 30s;
    while (run.running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(100ms);
    BOOST_TEST(!run.running());
    // Gone with the run: nothing listens any more.
    BOOST_TEST(get(port, "/metrics").error.failed());
}

BOOST_AUTO_TEST_CASE(a_runs_summary_holds_what_the_server_counted_before_and_after) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const int rc = openloop_cli({"run", "--target", sim.url, "--rate", "20", "--num-requests", "60", "--input-len", "32",
                                 "--output-len", "8", "--progress", "off", "--lag-bound", "250ms", "--scrape",
                                 sim.url + "/metrics", "--server-pid", std::to_string(sim.process.pid()), "--out",
                                 dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST(rc == 0, slurp(dir.file("run.log")));
    const auto summary = read_json(dir.file("out/summary.json"));
    const auto& s = summary.at("server_signals").as_object();
    const auto& delta = s.at("delta").as_object();
    // Every token the server counted during the run is one the run counted (the calibration's
    // requests before it are in "before", not in the delta).
    BOOST_TEST(delta.at("generation_tokens").to_number<double>() == summary.at("total_output_tokens").to_number<double>());
    BOOST_TEST(delta.at("requests_succeeded").to_number<double>() == 60.0);
    BOOST_TEST(s.at("scrapes").as_array()[0].at("failures").to_number<int>() == 0);
    BOOST_TEST(s.at("server_rss_mib").at("after").to_number<double>() > 1.0);
}

BOOST_AUTO_TEST_SUITE_END()
