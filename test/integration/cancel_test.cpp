#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace test_http;
using namespace std::chrono_literals;

namespace {

// A loopback listener that never accepts. With a backlog of 0 Linux queues
// one connection; filled, it drops further SYNs, so connects hang in SYN_SENT
// until their timeout.
struct silent_listener {
    int fd = -1;
    unsigned short port = 0;
    std::vector<int> fillers;

    explicit silent_listener(int backlog) {
        fd = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        BOOST_TEST_REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
        BOOST_TEST_REQUIRE(::listen(fd, backlog) == 0);
        socklen_t n = sizeof a;
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n);
        port = ntohs(a.sin_port);
    }
    ~silent_listener() {
        for (const int f : fillers) ::close(f);
        ::close(fd);
    }

    // Plain non-blocking connects that fill the accept queue.
    void fill(int n) {
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(port);
        for (int i = 0; i < n; ++i) {
            const int f = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
            ::connect(f, reinterpret_cast<sockaddr*>(&a), sizeof a);
            fillers.push_back(f);
        }
        std::this_thread::sleep_for(100ms);
    }

    // True when one more connect does not complete within the wait.
    bool connects_hang(std::chrono::milliseconds wait) const {
        const int f = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(port);
        ::connect(f, reinterpret_cast<sockaddr*>(&a), sizeof a);
        std::this_thread::sleep_for(wait);
        sockaddr_in peer{};
        socklen_t n = sizeof peer;
        const bool connected = ::getpeername(f, reinterpret_cast<sockaddr*>(&peer), &n) == 0;
        ::close(f);
        return !connected;
    }
};

// Runs openloop against url with a 1 s grace, interrupts it after 1.5 s
// (twice, with a grace of a minute, when twice is set), and checks it ended
// within 1 s more than the grace with every request cancelled.
void interrupted_run_ends_within_grace(const std::string& url, const std::vector<std::string>& extra,
                                       bool twice = false) {
    temp_dir dir;
    std::vector<std::string> argv{openloop_test::bin, "run", "--target", url, "--model", "m", "--tokenizer", "words",
                                  "--rate", "5", "--duration", "30s", "--input-len", "8", "--output-len", "8",
                                  "--grace", twice ? "60s" : "1s", "--spare-connections", "0", "--progress", "off",
                                  "--out", dir.file("out")};
    argv.insert(argv.end(), extra.begin(), extra.end());
    openloop::child_process p(argv);
    // At 5 req/s, a few requests are under way by then; a sanitized openloop
    // starts several times slower.
    std::this_thread::sleep_for(openloop_test::sanitized ? 4000ms : 1500ms);
    BOOST_TEST_REQUIRE(p.running());
    kill(p.pid(), SIGINT);
    if (twice) {
        std::this_thread::sleep_for(200ms);
        kill(p.pid(), SIGINT);
    }
    const auto t0 = std::chrono::steady_clock::now();
    while (p.running() && std::chrono::steady_clock::now() - t0 < 8s) std::this_thread::sleep_for(20ms);
    const auto took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST_MESSAGE(url << ": ended " << took << " s after SIGINT");
    BOOST_TEST_REQUIRE(!p.running(), "still running 8 s after SIGINT");
    BOOST_TEST(took < 2.0, "took " << took << " s; grace is 1 s, or the second Ctrl-C aborts");
    BOOST_TEST(p.stop() == 130);

    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("partial").as_bool());
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST(requests.size() >= 3u);
    for (const auto& r : requests) {
        BOOST_TEST(r.at("status").as_string() == "failed");
        BOOST_TEST(r.at("error").as_string() == "cancelled", r.at("id").as_string() << ": " << r.at("error").as_string());
    }
    BOOST_TEST(summary.at("errors").as_object().at("cancelled").to_number<std::size_t>() == requests.size());
}

}  // namespace

// Requests stuck in TCP connect are cancelled when the grace period ends.
BOOST_AUTO_TEST_CASE(grace_cancels_connects) {
    silent_listener l(0);
    l.fill(2);
    BOOST_TEST_REQUIRE(l.connects_hang(300ms), "connects to a full backlog completed; the test needs them to hang");
    interrupted_run_ends_within_grace("http://127.0.0.1:" + std::to_string(l.port), {});
}

// Requests stuck in the TLS handshake (the server took the connection and
// never answers the ClientHello) are cancelled too.
BOOST_AUTO_TEST_CASE(grace_cancels_tls_handshakes) {
    silent_listener l(64);
    interrupted_run_ends_within_grace("https://127.0.0.1:" + std::to_string(l.port), {"--insecure"});
}

// Requests written to a server that never answers are cancelled while they
// wait for the response headers.
BOOST_AUTO_TEST_CASE(grace_cancels_reads) {
    silent_listener l(64);
    interrupted_run_ends_within_grace("http://127.0.0.1:" + std::to_string(l.port), {});
}

// A second Ctrl-C aborts at once, whatever the grace.
BOOST_AUTO_TEST_CASE(second_sigint_cancels_at_once) {
    silent_listener l(64);
    interrupted_run_ends_within_grace("https://127.0.0.1:" + std::to_string(l.port), {"--insecure"}, true);
}
