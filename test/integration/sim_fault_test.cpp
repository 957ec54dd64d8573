#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "openloop/sim/sim.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <cmath>

BOOST_AUTO_TEST_SUITE(it_sim_fault)

namespace json = boost::json;
using namespace test_http;
using openloop::fault;

namespace {

// What a client sees, classified independently of the server's own bookkeeping.
fault classify(const response& r, int stall_ms, int slow_ms) {
    if (r.status == 429) return fault::http_429;
    if (r.status == 500) return fault::http_500;
    if (r.status == 503) return fault::http_503;
    if (r.error || r.body.find("[DONE]") == std::string::npos) return fault::disconnect;
    for (const auto& d : sse_data(r.body)) {
        if (d == "[DONE]") continue;
        boost::system::error_code ec;
        json::parse(d, ec);
        if (ec) return fault::bad_chunk;
    }
    if (r.header_ms >= slow_ms * 0.9) return fault::slow_first_byte;
    if (r.total_ms - r.header_ms >= stall_ms * 0.9) return fault::stall;
    return fault::none;
}

}  // namespace

BOOST_AUTO_TEST_CASE(each_fault_appears_at_its_rate) {
    const int n = 400, stall_ms = 60, slow_ms = 60;
    openloop::fault_config cfg;
    cfg.http_429 = 0.08;
    cfg.http_500 = 0.06;
    cfg.http_503 = 0.05;
    cfg.disconnect = 0.07;
    cfg.bad_chunk = 0.06;
    cfg.stall = 0.05;
    cfg.slow_first_byte = 0.05;
    const std::string seed = "7";
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "firehose", "--seed", seed, "--fault-429", "0.08", "--fault-500", "0.06",
                                    "--fault-503", "0.05", "--fault-disconnect", "0.07", "--fault-bad-chunk", "0.06",
                                    "--fault-stall", "0.05", "--fault-slow-first-byte", "0.05", "--stall-ms",
                                    std::to_string(stall_ms), "--slow-first-byte-ms", std::to_string(slow_ms)});
    const std::string body = R"({"prompt":"a b c d","max_tokens":8,"ignore_eos":true,"stream":true})";
    std::map<fault, int> seen, predicted;
    int retry_after_missing = 0;
    for (int i = 0; i < n; ++i) {
        auto r = post(sim.port, "/v1/completions", body);
        const fault f = classify(r, stall_ms, slow_ms);
        ++seen[f];
        if (f == fault::http_429 && r.headers["Retry-After"] != "1") ++retry_after_missing;
        // Requests are sequential, so the server's request index is i: the draw is predictable.
        const fault expected = openloop::pick_fault(cfg, 7, static_cast<std::uint64_t>(i));
        ++predicted[expected];
        BOOST_TEST((f == expected), "request " << i << ": saw " << openloop::fault_name(f) << ", seed predicts "
                                               << openloop::fault_name(expected));
    }
    BOOST_TEST(retry_after_missing == 0);
    const std::pair<fault, double> rates[] = {
        {fault::http_429, cfg.http_429},     {fault::http_500, cfg.http_500},   {fault::http_503, cfg.http_503},
        {fault::disconnect, cfg.disconnect}, {fault::bad_chunk, cfg.bad_chunk}, {fault::stall, cfg.stall},
        {fault::slow_first_byte, cfg.slow_first_byte}, {fault::none, 1.0 - cfg.total()}};
    for (const auto& [f, p] : rates) {
        // Binomial count: within four standard deviations of n*p.
        const double sd = std::sqrt(n * p * (1 - p));
        BOOST_TEST(std::abs(seen[f] - n * p) <= 4 * sd + 1,
                   openloop::fault_name(f) << ": " << seen[f] << " of " << n << ", expected about " << n * p);
        BOOST_TEST(seen[f] > 0, openloop::fault_name(f) << " never appeared");
    }
}

BOOST_AUTO_TEST_CASE(fault_draws_are_reproducible_and_bounded) {
    openloop::fault_config cfg;
    cfg.http_500 = 0.5;
    int same = 0, diff = 0;
    for (std::uint64_t i = 0; i < 1000; ++i) {
        same += openloop::pick_fault(cfg, 1, i) == openloop::pick_fault(cfg, 1, i);
        diff += openloop::pick_fault(cfg, 1, i) != openloop::pick_fault(cfg, 2, i);
    }
    BOOST_TEST(same == 1000);
    BOOST_TEST(diff > 300);  // another seed is another sequence
    openloop::fault_config none;
    for (std::uint64_t i = 0; i < 1000; ++i) BOOST_TEST((openloop::pick_fault(none, 1, i) == fault::none));
}

BOOST_AUTO_TEST_SUITE_END()
