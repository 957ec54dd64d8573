#include <boost/test/unit_test.hpp>

// openloop's own /metrics endpoint, in process on 127.0.0.1, talked to with a
// plain blocking Beast client (test_http) over real sockets.

#include "openloop/watch/metrics_endpoint.hpp"
#include "test_http.hpp"

#include <atomic>
#include <chrono>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <sys/socket.h>

BOOST_AUTO_TEST_SUITE(it_metrics_endpoint)

using namespace test_http;
using namespace std::chrono_literals;
using openloop::metrics_endpoint;

namespace {

// A blocking connection whose reads give up after 5 s: a server that hangs
// fails the test instead of wedging it.
struct client {
    net::io_context io;
    tcp::socket socket{io};
    unsigned short port;

    explicit client(unsigned short p) : port(p) {
        socket.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
        timeval tv{5, 0};
        ::setsockopt(socket.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    }
    response get(const std::string& target, const std::string& method = "GET") {
        request_options o;
        o.method = method;
        o.target = target;
        return exchange(socket, o, port);
    }
    // True when the server closed the connection (EOF or reset) within 5 s.
    bool closed_by_server() {
        char byte;
        boost::system::error_code ec;
        socket.read_some(net::buffer(&byte, 1), ec);
        return ec == net::error::eof || ec == net::error::connection_reset;
    }
};

bool refuses_connections(unsigned short port) {
    net::io_context io;
    tcp::socket s(io);
    boost::system::error_code ec;
    s.connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port), ec);
    return ec == net::error::connection_refused;
}

}  // namespace

BOOST_AUTO_TEST_CASE(serves_the_latest_text_on_one_keep_alive_connection) {
    metrics_endpoint m("127.0.0.1:0");
    BOOST_TEST_REQUIRE(m.port() != 0);
    m.start();
    client c(m.port());

    auto r = c.get("/metrics");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.body.rfind("# ", 0) == 0u, "before a publish: a comment only");

    m.publish("openloop_in_flight 3\n");
    for (int i = 0; i < 2; ++i) {  // twice on the same connection
        r = c.get("/metrics");
        BOOST_TEST_REQUIRE(!r.error, r.error.message());
        BOOST_TEST(r.status == 200);
        BOOST_TEST(r.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8");
        BOOST_TEST(r.body == "openloop_in_flight 3\n");
    }
    r = c.get("/metrics?name[]=x");  // Prometheus may add parameters
    BOOST_TEST(r.body == "openloop_in_flight 3\n");
    r = c.get("/nope");
    BOOST_TEST(r.status == 404);
    r = c.get("/metrics", "POST");
    BOOST_TEST(r.status == 405);
    BOOST_TEST(r.headers["Allow"] == "GET");
    r = c.get("/");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.headers["Content-Type"].rfind("text/html", 0) == 0u);
    BOOST_TEST(r.body.find("fetch(\"/live.json\"") != std::string::npos, "the live page polls /live.json");
    r = c.get("/live.json");
    BOOST_TEST(r.status == 200);
    BOOST_TEST(r.headers["Content-Type"] == "application/json");
    BOOST_TEST(r.body == "{}", "before a publish: an empty view");

    m.publish("openloop_in_flight 4\n");
    r = c.get("/metrics");
    BOOST_TEST(!r.error);
    BOOST_TEST(r.body == "openloop_in_flight 4\n");

    // stop() with the connection still open: prompt, the connection closed,
    // the port no longer listening.
    const auto t0 = std::chrono::steady_clock::now();
    m.stop();
    BOOST_TEST((std::chrono::steady_clock::now() - t0) < 2s);
    BOOST_TEST(c.closed_by_server());
    BOOST_TEST(refuses_connections(c.port));
    m.stop();  // idempotent
}

BOOST_AUTO_TEST_CASE(bind_failure_names_the_address) {
    metrics_endpoint first("127.0.0.1:0");
    const std::string address = "127.0.0.1:" + std::to_string(first.port());
    try {
        metrics_endpoint second(address);
        BOOST_FAIL("bound a port already listened on");
    } catch (const std::runtime_error& e) {
        const std::string what = e.what();
        BOOST_TEST(what.find(address) != std::string::npos, what);
        BOOST_TEST(what.find("in use") != std::string::npos, what);
    }
}

BOOST_AUTO_TEST_CASE(bounds_connections_idle_time_and_request_size) {
    openloop::metrics_endpoint_options o;
    o.max_connections = 2;
    o.idle_timeout = 300ms;
    o.max_request_bytes = 1024;
    metrics_endpoint m("127.0.0.1:0", o);
    m.start();
    m.publish("x 1\n");
    {
        client a(m.port()), b(m.port());
        BOOST_TEST(a.get("/metrics").body == "x 1\n");
        BOOST_TEST(b.get("/metrics").body == "x 1\n");
        // Over the bound: the connection that waited longest on its client (a) makes room.
        client third(m.port());
        BOOST_TEST(third.get("/metrics").body == "x 1\n");
        BOOST_TEST(a.closed_by_server());
        // Idle past the timeout: the server hangs up.
        const auto t0 = std::chrono::steady_clock::now();
        BOOST_TEST(b.closed_by_server());
        BOOST_TEST((std::chrono::steady_clock::now() - t0) < 3s);
    }
    client fresh(m.port());
    BOOST_TEST(fresh.get("/metrics").body == "x 1\n");
    // Headers beyond max_request_bytes: closed without an answer.
    request_options big;
    big.target = "/metrics";
    big.headers["X-Padding"] = std::string(4096, 'a');
    auto r = exchange(fresh.socket, big, fresh.port);
    BOOST_TEST(r.status == 0);
    BOOST_TEST(r.error);
}

// `:PORT` listens on every interface: clients that connect and say nothing,
// or send their headers a byte at a time, must not keep a scraper waiting.
// More of them than the endpoint holds connections, then a scrape: answered
// at once (the bound is generous for a busy machine; before, the scrape's
// connection was closed unanswered, or it waited for the idle ones' 60 s).
BOOST_AUTO_TEST_CASE(idle_clients_do_not_lock_out_a_scraper) {
    metrics_endpoint m("127.0.0.1:0");
    m.start();
    m.publish("x 2\n");
    net::io_context io;
    std::vector<tcp::socket> idle;
    for (int i = 0; i < 120; ++i) {
        idle.emplace_back(io).connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), m.port()));
        if (i >= 100) net::write(idle.back(), net::buffer(std::string_view("GET /metr")));
    }
    const auto t0 = std::chrono::steady_clock::now();
    client scraper(m.port());
    const response r = scraper.get("/metrics");
    const auto took = std::chrono::steady_clock::now() - t0;
    BOOST_TEST(r.status == 200, r.error.message());
    BOOST_TEST(r.body == "x 2\n");
    BOOST_TEST(took < 5s, std::chrono::duration<double>(took).count() << " s for a scrape");
}

// A request's headers are read within the request timeout from their first
// byte, and a fresh connection's first request within it too; between a kept
// connection's requests the idle timeout holds.
BOOST_AUTO_TEST_CASE(a_request_is_read_within_the_request_timeout) {
    openloop::metrics_endpoint_options o;
    o.request_timeout = 300ms;
    o.idle_timeout = 60s;
    metrics_endpoint m("127.0.0.1:0", o);
    m.start();
    client kept(m.port());
    BOOST_TEST(kept.get("/metrics").status == 200);
    client slow(m.port()), silent(m.port());
    net::write(slow.socket, net::buffer(std::string_view("GET /metrics HTTP/1.1\r\nHost: x\r\n")));
    const auto t0 = std::chrono::steady_clock::now();
    BOOST_TEST(slow.closed_by_server(), "headers never finished: closed");
    BOOST_TEST(silent.closed_by_server(), "connected and said nothing: closed");
    BOOST_TEST((std::chrono::steady_clock::now() - t0) < 3s);
    BOOST_TEST(kept.get("/metrics").status == 200, "a kept connection waits its idle timeout, not the request's");
}

BOOST_AUTO_TEST_CASE(publish_from_another_thread_while_serving) {
    metrics_endpoint m("127.0.0.1:0");
    m.start();
    m.publish("v 0\n");
    std::atomic<bool> done{false};
    std::thread reporter([&] {
        for (int i = 1; i <= 2000 && !done; ++i) {
            m.publish("v " + std::to_string(i) + "\n");
            std::this_thread::sleep_for(100us);
        }
    });
    client c(m.port());
    int last = -1;
    bool ordered = true;
    for (int i = 0; i < 100; ++i) {
        const auto r = c.get("/metrics");
        BOOST_TEST_REQUIRE(r.status == 200);
        BOOST_TEST_REQUIRE(r.body.rfind("v ", 0) == 0u);
        const int v = std::stoi(r.body.substr(2));
        ordered = ordered && v >= last;  // the latest text only moves forward
        last = v;
    }
    done = true;
    reporter.join();
    BOOST_TEST(ordered);
    m.stop();
}

BOOST_AUTO_TEST_CASE(destructor_stops_with_a_client_connected) {
    unsigned short port = 0;
    std::optional<client> c;
    const auto t0 = std::chrono::steady_clock::now();
    {
        metrics_endpoint m("127.0.0.1:0");
        m.start();
        port = m.port();
        c.emplace(port);
        BOOST_TEST(c->get("/metrics").status == 200);
    }
    BOOST_TEST((std::chrono::steady_clock::now() - t0) < 2s);
    BOOST_TEST(c->closed_by_server());
    BOOST_TEST(refuses_connections(port));
}

BOOST_AUTO_TEST_SUITE_END()
