#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

// The simulator under requests and clients that once wedged it: numbers that
// overflowed an int, non-streaming clients that hung up, and a connection
// storm beyond its file-descriptor limit.

#include "openloop/cli/child_process.hpp"
#include "proc_events.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>
#include <vector>

#include <sys/resource.h>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(it_sim_hardening)

namespace json = boost::json;
using namespace test_http;
using namespace std::chrono_literals;

namespace {

// The value of the first sample of metric name in Prometheus text; NaN when absent.
double metric(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.rfind(name, 0) != 0) continue;
        const char next = line.size() > name.size() ? line[name.size()] : '\0';
        if (next != '{' && next != ' ') continue;
        return std::stod(line.substr(line.rfind(' ') + 1));
    }
    return std::nan("");
}

double metric_now(unsigned short port, const std::string& name) { return metric(get(port, "/metrics").body, name); }

// Polls until metric name equals want or the deadline passes; returns the last value.
double wait_for_metric(unsigned short port, const std::string& name, double want, std::chrono::milliseconds limit) {
    const auto deadline = std::chrono::steady_clock::now() + limit;
    double v = metric_now(port, name);
    while (v != want && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::sleep_for(50ms);
        v = metric_now(port, name);
    }
    return v;
}

// CPU seconds (user + system) the process has used, from /proc/PID/stat.
double cpu_seconds(pid_t pid) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(in)), {});
    std::istringstream fields(stat.substr(stat.rfind(')') + 2));
    std::vector<std::string> f{std::istream_iterator<std::string>(fields), {}};
    // After "pid (comm) ": state is field 3; utime and stime are fields 14 and 15.
    return double(std::stoll(f.at(11)) + std::stoll(f.at(12))) / double(::sysconf(_SC_CLK_TCK));
}

// A raw connection with one request written and its answer never read.
std::unique_ptr<beast::tcp_stream> send_and_leave(net::io_context& io, unsigned short port, const std::string& body) {
    auto s = std::make_unique<beast::tcp_stream>(io);
    s->connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), port));
    http::request<http::string_body> req{http::verb::post, "/v1/completions", 11};
    req.set(http::field::host, "127.0.0.1");
    req.set(http::field::content_type, "application/json");
    req.body() = body;
    req.prepare_payload();
    http::write(*s, req);
    return s;
}

const std::string small_request = R"({"prompt":"one two three","max_tokens":5,"ignore_eos":true})";

}  // namespace

// max_tokens 2147483646 once passed the context check as a negative int sum:
// eight such requests wedged cpu-small for good (kv_cache_usage_perc -4994).
BOOST_AUTO_TEST_CASE(huge_max_tokens_are_refused_and_the_engine_stays_sane) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    for (int i = 0; i < 8; ++i) {
        const bool chat = i % 2;
        const auto r = chat ? post(sim.port, "/v1/chat/completions",
                                   R"({"messages":[{"role":"user","content":"hi there"}],"max_completion_tokens":2147483646,
                                       "ignore_eos":true,"stream":true})")
                            : post(sim.port, "/v1/completions",
                                   R"({"prompt":"hi there","max_tokens":2147483646,"ignore_eos":true})");
        BOOST_TEST(r.status == 400, r.body);
        const auto err = json::parse(r.body).as_object().at("error").as_object();
        BOOST_TEST(std::string(err.at("message").as_string()).find("maximum context length is 4096 tokens") !=
                   std::string::npos, r.body);
        BOOST_TEST(err.at("type").as_string() == "BadRequestError");
    }
    const auto ok = post(sim.port, "/v1/completions", small_request);
    BOOST_TEST(ok.status == 200, ok.body);
    BOOST_TEST(json::parse(ok.body).at("usage").at("completion_tokens").as_int64() == 5);
    const auto metrics = get(sim.port, "/metrics").body;
    const double kv = metric(metrics, "vllm:kv_cache_usage_perc");
    BOOST_TEST((kv >= 0 && kv <= 1), kv);
    BOOST_TEST(metric(metrics, "vllm:num_requests_running") == 0);
    BOOST_TEST(metric(metrics, "vllm:num_requests_waiting") == 0);
}

// A non-streaming client that hangs up frees its slot at once, as a streaming
// one does: the engine stops decoding for it.
BOOST_AUTO_TEST_CASE(non_streaming_clients_that_leave_free_their_slots) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small", "--max-num-seqs", "2"});
    net::io_context io;
    // 4000 tokens at cpu-small's >= 20 ms a step: over 80 s each, were they decoded.
    const std::string longest = R"({"prompt":"a b c","max_tokens":4000,"ignore_eos":true})";
    std::vector<std::unique_ptr<beast::tcp_stream>> clients;
    for (int i = 0; i < 2; ++i) clients.push_back(send_and_leave(io, sim.port, longest));
    BOOST_TEST_REQUIRE(wait_for_metric(sim.port, "vllm:num_requests_running", 2, 5s) == 2);
    for (auto& c : clients) c->socket().close();
    BOOST_TEST(wait_for_metric(sim.port, "vllm:num_requests_running", 0, 3s) == 0);
    // Both slots are free: a small request is served promptly (5 tokens, ~0.2 s).
    const auto r = post(sim.port, "/v1/completions", small_request);
    BOOST_TEST(r.status == 200, r.body);
    BOOST_TEST(r.total_ms < 5000, r.total_ms);
}

// Out of file descriptors, accept fails at once for every queued connection:
// the loop now backs off (10 ms doubling to 100 ms) instead of spinning a core,
// and serves again when descriptors are free.
// Not in sanitized trees: with every descriptor taken, the sanitizer runtime
// cannot make the pipe it probes memory with, and UBSan then reports Asio's
// own eof error category as having an invalid vptr (a false report).
boost::test_tools::assertion_result descriptors_can_run_out(boost::unit_test::test_unit_id) {
    boost::test_tools::assertion_result r(!openloop_test::sanitized);
    r.message() << "sanitizer runtimes need descriptors of their own";
    return r;
}

BOOST_AUTO_TEST_CASE(out_of_descriptors_the_accept_loop_backs_off_and_recovers,
                     *boost::unit_test::precondition(descriptors_can_run_out)) {
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const pid_t pid = sim.process.pid();
    const rlimit low{64, 64};
    BOOST_TEST_REQUIRE(::prlimit(pid, RLIMIT_NOFILE, &low, nullptr) == 0);
    net::io_context io;
    std::vector<std::unique_ptr<tcp::socket>> conns;
    // Connects complete in the kernel's backlog; beyond ~60 the server cannot accept.
    for (int i = 0; i < 150; ++i) {
        auto s = std::make_unique<tcp::socket>(io);
        boost::system::error_code ec;
        s->connect(tcp::endpoint(net::ip::make_address("127.0.0.1"), sim.port), ec);
        if (ec) break;  // refused: the backlog is full
        conns.push_back(std::move(s));
    }
    BOOST_TEST_REQUIRE(conns.size() > 80u);
    // Out of descriptors once it holds all 64 (it accepted what it could), however late a loaded
    // machine let it get there; then its CPU over a second of wall time, as long as that second
    // really lasted: a spinning loop takes what the machine gives it, a backing-off one 10 wakes.
    BOOST_TEST_REQUIRE(proc_events::wait_until([&] { return proc_events::open_descriptors(pid) >= low.rlim_cur; }, 30s),
                       "the simulator holds " << proc_events::open_descriptors(pid) << " descriptors of " << low.rlim_cur);
    const auto t0 = std::chrono::steady_clock::now();
    const double before = cpu_seconds(pid);
    std::this_thread::sleep_for(1s);
    const double used = cpu_seconds(pid) - before;
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(used < 0.2 * wall, "the simulator used " << used << " s of CPU in " << wall << " s while out of descriptors");
    conns.clear();  // closed: the server's descriptors free as it reads EOF
    const auto h = get(sim.port, "/health");
    BOOST_TEST(h.status == 200);
    BOOST_TEST(h.total_ms < 5000, h.total_ms);
    const auto r = post(sim.port, "/v1/completions", small_request);
    BOOST_TEST(r.status == 200, r.body);
    BOOST_TEST(metric_now(sim.port, "openloop_sim_accept_pauses_total") > 0);
}

BOOST_AUTO_TEST_SUITE_END()
