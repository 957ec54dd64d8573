#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "openloop/watch/signal_sampler.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <boost/asio/ip/tcp.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <thread>

BOOST_AUTO_TEST_SUITE(it_scrape)

using namespace openloop;

namespace {

std::optional<double> signal(const signal_sample& s, std::string_view name) {
    for (const auto& v : s.signals)
        if (v.name == name) return v.value;
    return std::nullopt;
}

std::optional<double> total(const signal_sample& s, std::string_view name) {
    for (const auto& v : s.totals)
        if (v.name == name) return v.value;
    return std::nullopt;
}

// A port nothing listens on: bound, then closed.
unsigned short closed_port() {
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    const auto port = a.local_endpoint().port();
    a.close();
    return port;
}

double seconds_since(std::chrono::steady_clock::time_point t0) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

BOOST_AUTO_TEST_CASE(scrapes_the_simulators_live_metrics) {
    auto sim = start_sim(openloop_test::bin, {"--preset", "h100-8b"});
    const int pid = static_cast<int>(sim.process.pid());
    signal_sampler sampler({.urls = {sim.url + "/metrics"},
                            .extra_metrics = {"vllm:request_success"},
                            .server_pid = pid,
                            .scrape = {}});

    const auto first = sampler.sample();
    BOOST_REQUIRE_EQUAL(first.sources.size(), 1u);
    BOOST_TEST_REQUIRE(first.sources[0].ok, first.sources[0].last_error);
    BOOST_TEST(first.sources[0].failures == 0u);
    BOOST_TEST(first.sources[0].bad_lines == 0u);
    BOOST_TEST(signal(first, "kv_usage").has_value());
    BOOST_TEST(signal(first, "running").has_value());
    BOOST_TEST(signal(first, "server_rss_bytes").value_or(0) > 0);
    BOOST_TEST(!signal(first, "generation_tokens_per_s"));  // a rate needs two scrapes
    BOOST_TEST(first.server.ok);
    BOOST_TEST(first.server.rss_bytes > 0);
    BOOST_TEST(first.server_cpu_percent == -1.0);
    const double generated_before = total(first, "generation_tokens").value_or(-1);
    BOOST_TEST(generated_before == 0.0);

    for (int i = 0; i < 4; ++i) {
        const auto r = test_http::post(sim.port, "/v1/completions",
                                       R"({"prompt":"one two three four five","max_tokens":8})");
        BOOST_TEST_REQUIRE(r.status == 200, r.body);
    }
    const auto second = sampler.sample();
    BOOST_TEST_REQUIRE(second.sources[0].ok, second.sources[0].last_error);
    BOOST_TEST(signal(second, "generation_tokens_per_s").value_or(0) > 0);
    BOOST_TEST(signal(second, "prompt_tokens_per_s").value_or(0) > 0);
    BOOST_TEST(signal(second, "vllm:request_success").value_or(0) > 0);  // the extra counter, as a rate
    BOOST_TEST(total(second, "generation_tokens").value_or(0) == 32.0);  // 4 x 8
    BOOST_TEST(second.sources[0].scrapes == 2u);
    BOOST_TEST(second.server.ok);
    BOOST_TEST(second.server_cpu_percent >= 0);
    BOOST_TEST(second.server_cpu_percent < 1600);

    // The server going away is a failure counted, not an exception.
    sim.process.stop();
    const auto gone = sampler.sample();
    BOOST_TEST(!gone.sources[0].ok);
    BOOST_TEST(gone.sources[0].failures == 1u);
    BOOST_TEST(gone.sources[0].last_error.find(sim.url) != std::string::npos);
    BOOST_TEST(gone.signals.empty());
    BOOST_TEST(!gone.server.ok);
}

BOOST_AUTO_TEST_CASE(a_closed_port_fails_fast_and_is_counted) {
    const std::string url = "http://127.0.0.1:" + std::to_string(closed_port()) + "/metrics";
    signal_sampler sampler({.urls = {url}, .extra_metrics = {}, .server_pid = -1, .scrape = {}});
    const auto t0 = std::chrono::steady_clock::now();
    auto s = sampler.sample();
    s = sampler.sample();
    BOOST_TEST(seconds_since(t0) < 1.0);
    BOOST_TEST(!s.sources[0].ok);
    BOOST_TEST(s.sources[0].failures == 2u);
    BOOST_TEST(s.sources[0].scrapes == 2u);
    BOOST_TEST(s.sources[0].last_error.find("scrape " + url + ": connecting: ") == 0u, s.sources[0].last_error);
    BOOST_TEST(!s.server.ok);  // no --server-pid
}

BOOST_AUTO_TEST_CASE(several_urls_are_prefixed_and_fail_apart) {
    auto sim = start_sim(openloop_test::bin, {"--preset", "firehose"});
    const std::string dead = "http://127.0.0.1:" + std::to_string(closed_port()) + "/metrics";
    signal_sampler sampler({.urls = {dead, sim.url + "/metrics"}, .extra_metrics = {}, .server_pid = -1, .scrape = {}});
    const auto s = sampler.sample();
    BOOST_REQUIRE_EQUAL(s.sources.size(), 2u);
    BOOST_TEST(!s.sources[0].ok);
    BOOST_TEST(s.sources[1].ok);
    BOOST_TEST(signal(s, "2.kv_usage").has_value());
    BOOST_TEST(!signal(s, "kv_usage"));
    BOOST_TEST(!signal(s, "1.kv_usage"));
}

BOOST_AUTO_TEST_CASE(non_200_and_not_metrics_are_failures) {
    auto sim = start_sim(openloop_test::bin, {"--preset", "firehose"});
    scraper missing(sim.url + "/nothing-here");
    const auto r = missing.get();
    BOOST_TEST(!r.ok);
    BOOST_TEST(r.error == "scrape " + sim.url + "/nothing-here: HTTP 404");
    // /v1/models answers 200 with JSON: a scrape with no samples counts as failed.
    signal_sampler sampler({.urls = {sim.url + "/v1/models"}, .extra_metrics = {}, .server_pid = -1, .scrape = {}});
    const auto s = sampler.sample();
    BOOST_TEST(!s.sources[0].ok);
    BOOST_TEST(s.sources[0].failures == 1u);
    BOOST_TEST(s.sources[0].last_error.find("no samples") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_server_that_never_answers_times_out) {
    // Accepts, reads nothing, says nothing: the total timeout ends the GET.
    boost::asio::io_context io;
    boost::asio::ip::tcp::acceptor a(io, {boost::asio::ip::make_address("127.0.0.1"), 0});
    const auto port = a.local_endpoint().port();
    scraper_options quick;
    quick.timeout = std::chrono::milliseconds(300);
    scraper s("http://127.0.0.1:" + std::to_string(port) + "/metrics", quick);
    const auto t0 = std::chrono::steady_clock::now();
    const auto r = s.get();
    BOOST_TEST(!r.ok);
    BOOST_TEST(r.error.find("timed out") != std::string::npos, r.error);
    BOOST_TEST(seconds_since(t0) < 1.5);
    BOOST_TEST(seconds_since(t0) >= 0.29);
}

BOOST_AUTO_TEST_CASE(https_verified_and_unverified) {
    test_http::temp_dir dir;
    std::string cert, key;
    BOOST_TEST_REQUIRE(test_http::make_self_signed(dir, cert, key));
    auto sim = start_sim(openloop_test::bin, {"--preset", "firehose", "--tls-cert", cert, "--tls-key", key});
    BOOST_TEST_REQUIRE(sim.url.rfind("https://", 0) == 0u, sim.url);
    scraper s(sim.url + "/metrics");
    const auto r = s.get();
    BOOST_TEST(!r.ok);
    BOOST_TEST(r.error.find("TLS handshake") != std::string::npos, r.error);
    scraper_options trust;
    trust.ca_file = cert;
    scraper trusting(sim.url + "/metrics", trust);
    const auto ok = trusting.get();
    BOOST_TEST_REQUIRE(ok.ok, ok.error);
    BOOST_TEST(parse_prometheus_text(ok.body).samples.size() > 5u);
    // A CA file that cannot be read is an error of the scrape, not a throw.
    trust.ca_file = dir.file("missing.pem");
    scraper broken(sim.url + "/metrics", trust);
    const auto b = broken.get();
    BOOST_TEST(!b.ok);
    BOOST_TEST(b.error.find("TLS setup") != std::string::npos, b.error);
}

BOOST_AUTO_TEST_SUITE_END()
