#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "hostile_tokenizers.hpp"
#include "proc_events.hpp"
#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>
#include <csignal>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(it_cancel)

using namespace test_http;
using namespace std::chrono_literals;

// A sanitized openloop starts several times slower: how long to wait for its first words.
const auto first_words = openloop_test::sanitized ? 20s : 6s;

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
        // Full once the kernel holds a filler's SYN unanswered.
        BOOST_TEST_REQUIRE(proc_events::wait_until([&] { return proc_events::connects_hanging_to(port) > 0; }, 10s),
                           "no connect to the full backlog hangs");
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

// Whether signal sig waits in process pid's shared pending set (/proc/PID/status ShdPnd, a
// hexadecimal mask, bit sig - 1). kill() has queued a held signal there by the time it returns.
bool signal_pending(const std::string& pid, int sig) {
    const std::string status = slurp("/proc/" + pid + "/status");
    const auto at = status.find("ShdPnd:");
    return at != std::string::npos && ((std::stoull(status.substr(at + 7), nullptr, 16) >> (sig - 1)) & 1) != 0;
}

// openloop run against url with its stderr in a file, read while it runs. The
// shell execs openloop, so the child's pid is openloop's.
struct logged_run {
    temp_dir dir;
    std::string err = dir.file("stderr");
    openloop::child_process p;

    logged_run(const std::string& url, const std::vector<std::string>& extra) : p(argv(url, extra)) {}

    std::vector<std::string> argv(const std::string& url, const std::vector<std::string>& extra) {
        std::vector<std::string> a{"/bin/sh", "-c", "exec \"$@\" 2>\"$0\"", err, openloop_test::bin, "run",
                                   "--target", url, "--progress", "off", "--out", dir.file("out")};
        a.insert(a.end(), extra.begin(), extra.end());
        return a;
    }
    std::string stderr_text() const { return slurp(err); }

    // Waits until stderr says text; false when it does not within the wait or openloop ended.
    bool wait_for(const std::string& text, std::chrono::milliseconds wait) {
        const auto until = std::chrono::steady_clock::now() + wait;
        while (std::chrono::steady_clock::now() < until) {
            if (stderr_text().find(text) != std::string::npos) return true;
            if (!p.running()) return false;
            std::this_thread::sleep_for(50ms);
        }
        return false;
    }

    // Seconds until openloop ended, at most limit (then it is still running).
    double wait_end(std::chrono::milliseconds limit) {
        const auto t0 = std::chrono::steady_clock::now();
        while (p.running() && std::chrono::steady_clock::now() - t0 < limit) std::this_thread::sleep_for(20ms);
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }

    // A signal before the schedule: openloop ends within a second or two, exit 130, with
    // its results written, partial, and nothing sent; it says it was interrupted while doing
    // what ("waiting for GET /v1/models").
    void check_interrupted_before_schedule(const std::string& doing) {
        const double took = wait_end(8s);
        BOOST_TEST_MESSAGE("ended " << took << " s after the signal");
        BOOST_TEST_REQUIRE(!p.running(), "still running 8 s after the signal");
        BOOST_TEST(took < 3.0, "took " << took << " s after the signal");
        BOOST_TEST(p.stop() == 130);
        const std::string said = stderr_text();
        BOOST_TEST(said.find("interrupted while " + doing) != std::string::npos, said);
        const auto summary = read_json(dir.file("out/summary.json"));
        BOOST_TEST(summary.at("partial").as_bool());
        BOOST_TEST(summary.at("partial_reason").as_string() == "interrupted by a signal");
        BOOST_TEST(read_jsonl(dir.file("out/requests.jsonl")).empty());
    }
};

// Runs openloop against the listener (scheme http or https) with a 1 s grace, interrupts it
// once three requests are sent (twice, with a grace of a minute, when twice is set: the second
// once openloop has said it took the first), and checks it ended within 1 s more than the grace
// with every request cancelled. Sent is what openloop's live metrics count, however long a
// loaded machine took to start it (connections opened ahead of their requests make the
// kernel's view of connects and handshakes no count of requests).
void interrupted_run_ends_within_grace(const silent_listener& l, const std::string& scheme,
                                       const std::vector<std::string>& extra, bool twice = false) {
    const unsigned short metrics = free_port();
    std::vector<std::string> args{"--model", "m", "--tokenizer", "words", "--rate", "5", "--arrival", "constant",
                                  "--duration", "30s", "--input-len", "8", "--output-len", "8", "--grace",
                                  twice ? "60s" : "1s", "--spare-connections", "0", "--metrics-listen",
                                  "127.0.0.1:" + std::to_string(metrics)};
    args.insert(args.end(), extra.begin(), extra.end());
    logged_run r(scheme + "://127.0.0.1:" + std::to_string(l.port), args);
    BOOST_TEST_REQUIRE(proc_events::wait_until(
                           [&] { return scraped(metrics, "openloop_requests_started_total") >= 3 || !r.p.running(); }, 60s,
                           100ms),
                       "fewer than three requests sent after 60 s: " << r.stderr_text());
    BOOST_TEST_REQUIRE(r.p.running(), r.stderr_text());
    kill(r.p.pid(), SIGINT);
    if (twice) {
        // Two signals before the first is taken are one pending signal: wait for its words.
        BOOST_TEST_REQUIRE(r.wait_for("openloop: stopping;", 30s), r.stderr_text());
        kill(r.p.pid(), SIGINT);
    }
    const double took = r.wait_end(8s);
    BOOST_TEST_MESSAGE(l.port << ": ended " << took << " s after SIGINT");
    BOOST_TEST_REQUIRE(!r.p.running(), "still running 8 s after SIGINT");
    BOOST_TEST(took < 2.0, "took " << took << " s; grace is 1 s, or the second Ctrl-C aborts");
    BOOST_TEST(r.p.stop() == 130);

    const auto summary = read_json(r.dir.file("out/summary.json"));
    BOOST_TEST(summary.at("partial").as_bool());
    const auto requests = read_jsonl(r.dir.file("out/requests.jsonl"));
    BOOST_TEST(requests.size() >= 3u);
    for (const auto& q : requests) {
        BOOST_TEST(q.at("status").as_string() == "failed");
        BOOST_TEST(q.at("error").as_string() == "cancelled", q.at("id").as_string() << ": " << q.at("error").as_string());
    }
    BOOST_TEST(summary.at("errors").as_object().at("cancelled").to_number<std::size_t>() == requests.size());
}

}  // namespace

// Requests stuck in TCP connect are cancelled when the grace period ends.
BOOST_AUTO_TEST_CASE(grace_cancels_connects) {
    silent_listener l(0);
    l.fill(2);
    BOOST_TEST_REQUIRE(l.connects_hang(300ms), "connects to a full backlog completed; the test needs them to hang");
    interrupted_run_ends_within_grace(l, "http", {});
}

// Requests stuck in the TLS handshake (the server took the connection and
// never answers the ClientHello) are cancelled too.
BOOST_AUTO_TEST_CASE(grace_cancels_tls_handshakes) {
    silent_listener l(64);
    interrupted_run_ends_within_grace(l, "https", {"--insecure"});
}

// Requests written to a server that never answers are cancelled while they
// wait for the response headers.
BOOST_AUTO_TEST_CASE(grace_cancels_reads) {
    silent_listener l(64);
    interrupted_run_ends_within_grace(l, "http", {});
}

// A second Ctrl-C aborts at once, whatever the grace.
BOOST_AUTO_TEST_CASE(second_sigint_cancels_at_once) {
    silent_listener l(64);
    interrupted_run_ends_within_grace(l, "https", {"--insecure"}, true);
}

// The tokenizer probe of a server that took the connection and never answers:
// named on stderr after a second, and the first Ctrl-C ends the run at once
// with its (empty) results, exit 130, rather than being lost.
BOOST_AUTO_TEST_CASE(sigint_in_the_tokenizer_probe_ends_the_run) {
    silent_listener l(64);
    logged_run r("http://127.0.0.1:" + std::to_string(l.port),
                 {"--model", "m", "--rate", "4", "--duration", "3s", "--timeout", "8s"});
    BOOST_TEST_REQUIRE(r.wait_for("openloop: waiting for POST /tokenize on http://127.0.0.1:", first_words), r.stderr_text());
    BOOST_TEST(r.stderr_text().find("at most 8 s") != std::string::npos, r.stderr_text());
    kill(r.p.pid(), SIGINT);
    r.check_interrupted_before_schedule("waiting for POST /tokenize");
}

// SIGTERM during the model's discovery (no --model) ends the run as Ctrl-C does: 130, not 143.
BOOST_AUTO_TEST_CASE(sigterm_in_the_model_discovery_ends_the_run) {
    silent_listener l(64);
    logged_run r("http://127.0.0.1:" + std::to_string(l.port), {"--rate", "4", "--duration", "3s"});
    BOOST_TEST_REQUIRE(r.wait_for("openloop: waiting for GET /v1/models on", first_words), r.stderr_text());
    kill(r.p.pid(), SIGTERM);
    r.check_interrupted_before_schedule("waiting for GET /v1/models");
    const auto run = read_json(r.dir.file("out/run.json"));
    BOOST_TEST(run.at("tokenizer").as_string() == "not calibrated (interrupted before the schedule)");
}

// The server watch's first sample (a --scrape endpoint that never answers) is named after a
// second, and Ctrl-C then ends the run as soon as that scrape's own 2 s bound is over.
BOOST_AUTO_TEST_CASE(sigint_in_the_server_watchs_first_sample_ends_the_run) {
    silent_listener target(64), metrics(64);
    logged_run r("http://127.0.0.1:" + std::to_string(target.port),
                 {"--model", "m", "--tokenizer", "words", "--rate", "4", "--duration", "3s", "--scrape",
                  "http://127.0.0.1:" + std::to_string(metrics.port) + "/metrics"});
    BOOST_TEST_REQUIRE(r.wait_for("openloop: waiting for the server watch's first sample", first_words), r.stderr_text());
    kill(r.p.pid(), SIGINT);
    r.check_interrupted_before_schedule("waiting for the server watch's first sample");
}

// Ctrl-C while a large tokenizer loads (5 M tokens, seconds): named on stderr after a second, and the
// first SIGINT ends the run at once, 130, its results written and nothing sent; it used to kill
// openloop with nothing written (or, where SIGINT was ignored, go unnoticed).
BOOST_AUTO_TEST_CASE(sigint_while_the_tokenizer_loads_ends_the_run) {
    silent_listener l(64);
    temp_dir files;
    const std::string tok = hostile::write_big_vocabulary(files.file("tokenizer.json"), 5'000'000);
    logged_run r("http://127.0.0.1:" + std::to_string(l.port),
                 {"--model", "m", "--tokenizer", "hf:" + tok, "--rate", "4", "--duration", "3s"});
    BOOST_TEST_REQUIRE(r.wait_for("openloop: loading tokenizer " + tok, first_words + 10s), r.stderr_text());
    kill(r.p.pid(), SIGINT);
    r.check_interrupted_before_schedule("loading tokenizer " + tok);
    BOOST_TEST(read_json(r.dir.file("out/run.json")).at("tokenizer").as_string() ==
               "not calibrated (interrupted before the schedule)");
}

// Ctrl-C while a sim: target's simulator starts is held until the run takes it: the run ends
// interrupted with its results, and the simulator is stopped with it, not left running. The
// simulator's start is held open until the signal has landed: it opens its --log, a FIFO here,
// before it listens, and that open waits for a reader, which the test becomes only once the
// signal waits in openloop's pending set. (Without the hold, a quick machine had the simulator
// up and the model found before the signal came, and the run was waiting for something else.)
BOOST_AUTO_TEST_CASE(sigint_while_the_simulator_starts_ends_the_run) {
    temp_dir fifo_dir;
    const std::string fifo = fifo_dir.file("sim-log");
    BOOST_TEST_REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
    logged_run r("sim:cpu-small", {"--rate", "4", "--duration", "3s", "--sim-arg=--log=" + fifo});
    const std::string pid = std::to_string(r.p.pid());
    // The simulator is spawned once the signals are held.
    pid_t sim = -1;
    for (int i = 0; i < 4000 && sim < 0 && r.p.running(); ++i) {
        const std::string children = slurp("/proc/" + pid + "/task/" + pid + "/children");
        if (!children.empty()) sim = std::stoi(children);
        std::this_thread::sleep_for(5ms);
    }
    BOOST_TEST_REQUIRE(sim > 0, "no simulator process appeared");
    kill(r.p.pid(), SIGINT);
    BOOST_TEST_REQUIRE(signal_pending(pid, SIGINT), "SIGINT is not held while the simulator starts");
    // A reader for the FIFO: the simulator's open returns, and it starts. Nothing is sent, so
    // it writes nothing there.
    const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
    BOOST_TEST_REQUIRE(reader >= 0);
    r.check_interrupted_before_schedule("waiting for GET /v1/models");
    ::close(reader);
    BOOST_TEST(::kill(sim, 0) != 0, "the simulator " << sim << " still runs");
}

// An unanswered tokenize probe waits --timeout (here shorter than the 10 s budget), once: the
// other dialects are not tried, and the run goes on with word prompts (it took ~90 s before).
BOOST_AUTO_TEST_CASE(unanswered_tokenizer_probe_waits_the_timeout_once) {
    silent_listener l(64);
    logged_run r("http://127.0.0.1:" + std::to_string(l.port),
                 {"--model", "m", "--rate", "4", "--duration", "1s", "--timeout", "2s"});
    // 2 s of probe, 1 s of schedule, 2 s for the last request's --timeout.
    const double took = r.wait_end(30s);
    BOOST_TEST_REQUIRE(!r.p.running(), "still running after 30 s");
    BOOST_TEST(took < (openloop_test::sanitized ? 30.0 : 15.0), "took " << took << " s");
    BOOST_TEST(r.p.stop() == 4);  // every request timed out
    const std::string said = r.stderr_text();
    BOOST_TEST(said.find("waiting for POST /tokenize") != std::string::npos, said);
    BOOST_TEST(said.find("no answer from the tokenize endpoint: POST /tokenize on http://127.0.0.1:" +
                         std::to_string(l.port) + ": no answer within 2 s") != std::string::npos, said);
    const auto summary = read_json(r.dir.file("out/summary.json"));
    BOOST_TEST(summary.at("errors").as_object().at("timeout_total").to_number<std::size_t>() >= 1u);
}

// Ctrl-C after the last send, while the drain waits for requests that will never be answered:
// the grace cancels them and the run ends 130, partial, its requests counted.
BOOST_AUTO_TEST_CASE(sigint_in_the_drain_ends_the_run) {
    silent_listener l(64);
    logged_run r("http://127.0.0.1:" + std::to_string(l.port),
                 {"--model", "m", "--tokenizer", "words", "--rate", "20", "--num-requests", "3", "--drain", "60s",
                  "--grace", "1s", "--spare-connections", "0"});
    // Signalled once the listener holds all three requests unread: the schedule is over (the
    // last send follows the schedule's end on the one io thread), and the drain lasts a minute.
    BOOST_TEST_REQUIRE(proc_events::wait_until([&] { return proc_events::requests_waiting_at(l.port) >= 3 || !r.p.running(); },
                                               60s),
                       "the listener never held three requests: " << r.stderr_text());
    BOOST_TEST_REQUIRE(r.p.running(), r.stderr_text());
    kill(r.p.pid(), SIGINT);
    const double took = r.wait_end(8s);
    BOOST_TEST_REQUIRE(!r.p.running(), "still running 8 s after SIGINT");
    BOOST_TEST(took < 3.0, "took " << took << " s; grace is 1 s");
    BOOST_TEST(r.p.stop() == 130);
    const auto summary = read_json(r.dir.file("out/summary.json"));
    BOOST_TEST(summary.at("partial").as_bool());
    BOOST_TEST(summary.at("drain_limit").to_number<double>() == 60.0);  // the drain was under way
    const auto requests = read_jsonl(r.dir.file("out/requests.jsonl"));
    BOOST_TEST(requests.size() == 3u);
    BOOST_TEST(summary.at("errors").as_object().at("cancelled").to_number<std::size_t>() == 3u);
}

// Default timeouts against a server that never answers: the probe's 10 s, the schedule, then
// the default drain (at least 10 s) cancels what is left; the run ends, INVALID, in bounded time.
BOOST_AUTO_TEST_CASE(never_answering_server_ends_within_the_default_bounds) {
    silent_listener l(64);
    logged_run r("http://127.0.0.1:" + std::to_string(l.port), {"--model", "m", "--rate", "10", "--num-requests", "2"});
    const double took = r.wait_end(60s);
    BOOST_TEST_REQUIRE(!r.p.running(), "still running after 60 s");
    BOOST_TEST_MESSAGE("ended after " << took << " s");
    BOOST_TEST(took >= 19.0, "took " << took << " s: the probe's 10 s and the 10 s drain floor");
    BOOST_TEST(r.p.stop() == 3);  // nothing completed; the cancelled ones are not errors
    const std::string said = r.stderr_text();
    BOOST_TEST(said.find("no answer within 10 s") != std::string::npos, said);
    BOOST_TEST(said.find("drain after the last send ran out") != std::string::npos, said);
    const auto summary = read_json(r.dir.file("out/summary.json"));
    BOOST_TEST(summary.at("errors").as_object().at("cancelled_at_end").to_number<std::size_t>() == 2u);
}

BOOST_AUTO_TEST_SUITE_END()
