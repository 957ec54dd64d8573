#include <boost/test/unit_test.hpp>

#include "openloop/sim/engine.hpp"
#include "openloop/cli/child_process.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <atomic>
#include <sstream>
#include <thread>

BOOST_AUTO_TEST_SUITE(it_sim_queue)

using namespace test_http;

namespace {

double metric(unsigned short port, const std::string& name) {
    auto m = get(port, "/metrics");
    std::istringstream in(m.body);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind(name + "{", 0) == 0) return std::stod(line.substr(line.rfind(' ') + 1));
    throw std::runtime_error("metric not found: " + name);
}

}  // namespace

// Driven above its predicted capacity, the CPU-class preset must queue.
BOOST_AUTO_TEST_CASE(cpu_small_queues_above_capacity) {
    const int input = 128, output = 32;
    const auto cap = openloop::predict_capacity(*openloop::find_preset("cpu-small"), input, output);
    BOOST_TEST_REQUIRE(cap.max_request_rate > 0.5);
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});

    std::string prompt;
    for (int i = 0; i < input; ++i) prompt += " w" + std::to_string(i);
    const std::string body = R"({"prompt":")" + prompt + R"(","max_tokens":)" + std::to_string(output) +
                             R"(,"ignore_eos":true,"stream":true})";

    // A simple open-loop client: one thread per request, sent at 3x capacity for 3 s.
    const double rate = 3 * cap.max_request_rate;
    const int total = static_cast<int>(rate * 3);
    std::atomic<int> ok{0};
    std::vector<std::thread> clients;
    const auto start = std::chrono::steady_clock::now();
    // One /metrics sample can fall between a step that ended a request and the next,
    // which admits a waiting one: the batch is judged by its fullest sample.
    double max_waiting = 0, max_running = 0;
    for (int i = 0; i < total; ++i) {
        std::this_thread::sleep_until(start + std::chrono::duration<double>(i / rate));
        clients.emplace_back([&] { ok += post(sim.port, "/v1/completions", body).status == 200; });
        if (i % 4 == 3) {
            max_waiting = std::max(max_waiting, metric(sim.port, "vllm:num_requests_waiting"));
            max_running = std::max(max_running, metric(sim.port, "vllm:num_requests_running"));
        }
    }
    max_running = std::max(max_running, metric(sim.port, "vllm:num_requests_running"));
    max_waiting = std::max(max_waiting, metric(sim.port, "vllm:num_requests_waiting"));
    BOOST_TEST_MESSAGE("capacity " << cap.max_request_rate << " req/s, offered " << rate << ", max waiting "
                                   << max_waiting << ", max running " << max_running);
    BOOST_TEST(max_waiting > 0);
    BOOST_TEST(max_running == cap.batch);
    for (auto& t : clients) t.join();
    BOOST_TEST(ok.load() == total);
    BOOST_TEST(metric(sim.port, "vllm:num_requests_waiting") == 0);
}

BOOST_AUTO_TEST_SUITE_END()
