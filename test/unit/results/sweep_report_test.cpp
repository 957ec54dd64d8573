#define BOOST_TEST_MODULE sweep_report
#include <boost/test/unit_test.hpp>

#include "openloop/results/sweep_json.hpp"
#include "openloop/results/sweep_table.hpp"
#include "run_fixtures.hpp"

#include <string>
#include <vector>

using namespace openloop;
using namespace run_fixtures;

namespace {

// A stage at `rate` whose steady window completed `completed` of the
// requests sent: 100 requests over 10 s of sending.
stage_row stage(std::size_t index, double rate, std::uint64_t completed, const std::vector<slo>& slos = {}) {
    run_stats s = healthy();
    s.started = 101;
    s.steady_window_s = 100.0 / rate;
    s.steady_completed = completed;
    return make_stage_row(index, rate, 0, make_run_result(s, open_loop()), false, slos, 0.95);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_stage_row_comes_from_the_typed_result) {
    const auto r = stage(0, 10, 100, parse_slos({"ttft_p99=150ms", "lag_p99=1ms"}));
    BOOST_TEST(r.offered_rate.value() == 10.0);
    BOOST_TEST(!r.concurrency);
    BOOST_TEST(r.achieved_rate == 10.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(r.follow_ratio.value() == 1.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(r.follows);
    BOOST_TEST(r.ttft.p99.value() == 100.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(!r.ttft.p99_ci);  // 10 samples bound no p99
    BOOST_TEST(r.lag.p99.value() == 0.1, boost::test_tools::tolerance(0.001));
    BOOST_TEST_REQUIRE(r.slo_results.size() == 2u);
    BOOST_TEST(r.slo_results[1].pass);  // a lag SLO is judged from the lag histogram
    BOOST_TEST(r.verdict == "good");
}

BOOST_AUTO_TEST_CASE(a_stored_row_reads_back_as_it_was_written) {
    stage_row r = stage(3, 8, 60, parse_slos({"e2e_p95=2s"}));
    r.dir = "stage-03-8ps";
    r.warmup_s = 5;
    r.run = 1;
    r.errors = {{"http_5xx", 2}};
    const auto json = to_json(r);
    const stage_row back = stage_row_from_json(json);
    BOOST_TEST(to_json(back) == json);
    BOOST_TEST(back.dir == "stage-03-8ps");
    BOOST_TEST(back.verdict == r.verdict);

    auto broken = json;
    broken.erase("follows");
    BOOST_CHECK_THROW(stage_row_from_json(broken), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(the_knee_is_the_last_stage_that_follows) {
    // Out of rate order, as a bisection runs them; the 16 req/s stage
    // completes only half of what it was sent.
    std::vector<stage_row> rows = {stage(0, 4, 100), stage(1, 16, 50), stage(2, 8, 100)};
    const auto a = analyse_sweep(rows, {}, false, 30, 0.95);
    BOOST_TEST_REQUIRE(a.stages.size() == 3u);
    BOOST_TEST(a.stages[1].offered_rate.value() == 8.0);
    BOOST_TEST(a.stages[1].index == 1u);
    BOOST_TEST(a.stages[1].run == 2u);
    BOOST_TEST(a.stages[2].verdict == "saturated");
    BOOST_TEST(a.knees.saturation.found);
    BOOST_TEST(a.knees.saturation.rate == 8.0);
    BOOST_TEST(!a.knees.slo);
    BOOST_TEST_REQUIRE(a.capacity.stage.has_value());
    BOOST_TEST(*a.capacity.stage == 1u);
    BOOST_TEST(a.capacity.basis == "saturation knee");

    sweep_report report;
    report.analysis = a;
    report.target = "sim:test";
    const std::string md = sweep_markdown(report);
    BOOST_TEST(md.find("| 1 | 8 | 8 |") != std::string::npos, md);
    BOOST_TEST(md.find("saturation knee |\n") != std::string::npos, md);
    BOOST_TEST(md.find("Little's law") != std::string::npos, md);
    const auto json = to_json(report);
    BOOST_TEST(json.at("knees").at("slo").at("explanation").as_string() == "no --slo given");
    BOOST_TEST(json.at("mode").as_string() == "open-loop");
}
