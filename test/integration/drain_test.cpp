#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <atomic>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(it_drain)

using namespace test_http;
using namespace std::chrono_literals;

namespace {

int loopback_listener(unsigned short& port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    BOOST_TEST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
    BOOST_TEST_REQUIRE(::listen(fd, 64) == 0);
    socklen_t n = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
    port = ntohs(a.sin_port);
    return fd;
}

// Never accepts: the kernel completes the handshakes and takes the requests,
// and no answer ever comes.
struct silent_server {
    unsigned short port = 0;
    int fd = loopback_listener(port);
    ~silent_server() { ::close(fd); }
};

// Answers every request with an SSE stream that never ends: a chunk every
// 50 ms, so neither the idle timeout nor the end of a body ever ends it.
struct endless_server {
    unsigned short port = 0;
    int fd = loopback_listener(port);
    std::atomic<bool> stop{false};
    std::vector<std::thread> streams;
    std::thread acceptor{[this] { accept_loop(); }};

    ~endless_server() {
        stop = true;
        acceptor.join();
        for (auto& t : streams) t.join();
        ::close(fd);
    }

    void accept_loop() {
        // Bounded: the destructor's stop flag is seen within 100 ms.
        while (!stop) {
            pollfd p{fd, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const int c = ::accept(fd, nullptr, nullptr);
            if (c >= 0) streams.emplace_back([this, c] { stream(c); });
        }
    }

    void stream(int c) {
        char buf[4096];
        (void)::recv(c, buf, sizeof buf, 0);
        std::string out = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";
        const std::string chunk =
            "data: {\"id\":\"x\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":"
            "{\"content\":\"a\"}}]}\n\n";
        while (!stop) {
            out += chunk;
            if (::send(c, out.data(), out.size(), MSG_NOSIGNAL) < 0) break;
            out.clear();
            std::this_thread::sleep_for(50ms);
        }
        ::close(c);
    }
};

struct finished_run {
    double took_s = 0;
    boost::json::object summary;
    std::vector<boost::json::object> requests;
};

// Runs openloop for --duration 2s at 5 req/s against url and waits up to
// wait for it to end on its own.
finished_run bounded_run(const std::string& url, const std::vector<std::string>& extra, std::chrono::seconds wait) {
    temp_dir dir;
    std::vector<std::string> argv{openloop_test::bin, "run", "--target", url, "--model", "m", "--tokenizer", "words",
                                  "--rate", "5", "--duration", "2s", "--input-len", "8", "--output-len", "8",
                                  "--spare-connections", "0", "--progress", "off", "--out", dir.file("out")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    const auto t0 = std::chrono::steady_clock::now();
    openloop::child_process p(argv);
    while (p.running() && std::chrono::steady_clock::now() - t0 < wait) std::this_thread::sleep_for(20ms);
    finished_run r;
    r.took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST_MESSAGE(url << ": ended after " << r.took_s << " s");
    BOOST_TEST_REQUIRE(!p.running(), "still running " << wait.count() << " s after the start");
    BOOST_TEST(p.stop() != 130);
    r.summary = read_json(dir.file("out/summary.json"));
    r.requests = read_jsonl(dir.file("out/requests.jsonl"));
    return r;
}

// Every request was cut by the drain: cancelled_at_end, out of the error rate.
void all_cancelled_at_end(const finished_run& r) {
    BOOST_TEST(r.requests.size() >= 5u);
    for (const auto& q : r.requests) {
        BOOST_TEST(q.at("status").as_string() == "failed");
        BOOST_TEST(q.at("error").as_string() == "cancelled_at_end", q.at("id").as_string() << ": " << q.at("error").as_string());
    }
    const auto& errors = r.summary.at("errors").as_object();
    BOOST_TEST(errors.at("cancelled_at_end").to_number<std::size_t>() == r.requests.size());
    BOOST_TEST(!errors.contains("cancelled"));
    BOOST_TEST(r.summary.at("error_rate").to_number<double>() == 0.0);
}

}  // namespace

// A server that takes requests and never answers: the run ends at
// duration + drain, the leftovers counted as cancelled_at_end.
BOOST_AUTO_TEST_CASE(drain_limit_ends_a_run_against_a_silent_server) {
    silent_server s;
    const auto r = bounded_run("http://127.0.0.1:" + std::to_string(s.port), {"--drain", "1s"}, 15s);
    BOOST_TEST(r.took_s < 2 + 1 + 1.5, "took " << r.took_s << " s; duration 2 s, drain 1 s");
    BOOST_TEST(r.summary.at("drain_limit").to_number<double>() == 1.0);
    all_cancelled_at_end(r);
}

// A server that streams forever: the same bound.
BOOST_AUTO_TEST_CASE(drain_limit_ends_a_run_against_an_endless_stream) {
    endless_server s;
    const auto r = bounded_run("http://127.0.0.1:" + std::to_string(s.port), {"--drain", "1s"}, 15s);
    BOOST_TEST(r.took_s < 2 + 1 + 1.5, "took " << r.took_s << " s; duration 2 s, drain 1 s");
    all_cancelled_at_end(r);
    for (const auto& q : r.requests) BOOST_TEST(q.at("output_tokens").to_number<std::int64_t>() > 0);
}

// With default flags the run ends too: nothing ended, so the default drain
// is its floor (3 x the first request's age of about 2 s is under 10 s).
BOOST_AUTO_TEST_CASE(default_drain_ends_a_run_against_a_silent_server) {
    silent_server s;
    const auto r = bounded_run("http://127.0.0.1:" + std::to_string(s.port), {}, 30s);
    BOOST_TEST(r.summary.at("drain_limit").to_number<double>() == 10.0);
    BOOST_TEST(r.took_s < 2 + 10 + 1.5, "took " << r.took_s << " s; duration 2 s, default drain 10 s");
    all_cancelled_at_end(r);
}

BOOST_AUTO_TEST_SUITE_END()
