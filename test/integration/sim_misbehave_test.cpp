#include <boost/test/unit_test.hpp>

// The simulator's misbehaviour for soak tests, seen from outside: a leak that
// /metrics and the process's RSS both show, and a step change in latency at
// the time asked for.

#include "openloop/cli/child_process.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_sim_misbehave)

using namespace test_http;
using steady = std::chrono::steady_clock;

namespace {

// The value of every sample line, by metric name (labels dropped).
std::map<std::string, double> scrape(unsigned short port) {
    const auto m = get(port, "/metrics");
    BOOST_TEST_REQUIRE(m.status == 200);
    std::map<std::string, double> values;
    std::istringstream in(m.body);
    for (std::string line; std::getline(in, line);) {
        if (line.empty() || line[0] == '#') continue;
        const auto sp = line.rfind(' ');
        values[line.substr(0, std::min(line.find('{'), sp))] = std::stod(line.substr(sp + 1));
    }
    return values;
}

const std::string short_request = R"({"prompt":"a b c","max_tokens":8,"ignore_eos":true})";

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_leak_shows_in_metrics_and_rss) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose", "--leak-bytes-per-request", "1048576"});
    const auto before = scrape(sim.port);
    BOOST_TEST(before.at("openloop_sim_leaked_bytes") == 0);
    for (int i = 0; i < 50; ++i) BOOST_TEST_REQUIRE(post(sim.port, "/v1/completions", short_request).status == 200);
    const auto after = scrape(sim.port);
    BOOST_TEST(after.at("openloop_sim_leaked_bytes") == 50.0 * 1048576);
    BOOST_TEST(after.at("openloop_sim_leak_refused_total") == 0);
    const double grew = after.at("process_resident_memory_bytes") - before.at("process_resident_memory_bytes");
    BOOST_TEST(grew >= 40.0 * 1048576, grew / 1048576 << " MiB");
}

BOOST_AUTO_TEST_CASE(a_clean_server_leaks_nothing) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    for (int i = 0; i < 10; ++i) BOOST_TEST_REQUIRE(post(sim.port, "/v1/completions", short_request).status == 200);
    BOOST_TEST(scrape(sim.port).at("openloop_sim_leaked_bytes") == 0);
}

BOOST_AUTO_TEST_CASE(the_step_time_triples_at_the_step) {
    // cpu-small: 8 tokens one at a time, ~22 ms a step: ~0.2 s, then ~0.6 s.
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small", "--slowdown-step-at", "2s",
                                                  "--slowdown-step-factor", "3"});
    // The server's clock started before it printed its port: ours lags it,
    // so "before" ends well short of 2 s and "after" starts past it.
    const auto t0 = steady::now();
    const auto elapsed = [&] { return std::chrono::duration<double>(steady::now() - t0).count(); };
    std::vector<double> early, late;
    while (elapsed() < 1.0) {
        const auto r = post(sim.port, "/v1/completions", short_request);
        BOOST_TEST_REQUIRE(r.status == 200);
        early.push_back(r.total_ms);
    }
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(2100));
    for (int i = 0; i < 4; ++i) {
        const auto r = post(sim.port, "/v1/completions", short_request);
        BOOST_TEST_REQUIRE(r.status == 200);
        late.push_back(r.total_ms);
    }
    BOOST_TEST_REQUIRE(early.size() >= 3u);
    const double ratio = median(late) / median(early);
    BOOST_TEST(ratio >= 3 * 0.7, "E2E " << median(early) << " → " << median(late) << " ms");
    BOOST_TEST(ratio <= 3 * 1.3, "E2E " << median(early) << " → " << median(late) << " ms");
}

BOOST_AUTO_TEST_CASE(the_step_time_creeps_with_the_hours) {
    // F = 3600 per hour: the step time grows by its own size every second.
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small", "--slowdown-per-hour", "3600"});
    const auto t0 = steady::now();
    const auto first = post(sim.port, "/v1/completions", short_request);  // age ~0.1-0.3 s: x1.1-1.5
    BOOST_TEST_REQUIRE(first.status == 200);
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(2000));
    const auto later = post(sim.port, "/v1/completions", short_request);  // age ~2.0-2.6 s: x3.0-3.6
    BOOST_TEST_REQUIRE(later.status == 200);
    const double ratio = later.total_ms / first.total_ms;
    BOOST_TEST(ratio >= 1.8, "E2E " << first.total_ms << " → " << later.total_ms << " ms");
    BOOST_TEST(ratio <= 3.6, "E2E " << first.total_ms << " → " << later.total_ms << " ms");
}

BOOST_AUTO_TEST_SUITE_END()
