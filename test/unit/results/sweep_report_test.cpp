#include <boost/test/unit_test.hpp>

#include "openloop/results/sweep_json.hpp"
#include "openloop/results/sweep_table.hpp"
#include "run_fixtures.hpp"

#include <cmath>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_sweep_report)

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

// A sweep's TTFA SLO counts a request that never answered as infinitely late: a stage whose
// p99 lands on one fails it, and its row keeps the infinity through sweep.json.
BOOST_AUTO_TEST_CASE(a_ttfa_slo_fails_a_stage_whose_requests_never_answered) {
    run_stats s = thinking_run(97, 3);
    s.steady_window_s = 10;
    s.steady_completed = 100;
    const stage_row r = make_stage_row(0, 10, 0, make_run_result(s, open_loop()), false,
                                       parse_slos({"ttfa_p95=5s", "ttfa_p99=5s"}), 0.95);
    BOOST_TEST_REQUIRE(r.slo_results.size() == 2u);
    BOOST_TEST(r.slo_results[0].pass);  // 97 of 100 answered by 100 ms
    BOOST_TEST(!r.slo_results[1].pass);
    BOOST_TEST(std::isinf(r.slo_results[1].observed.value()));
    BOOST_TEST(!r.slo_pass);
    BOOST_TEST(r.verdict == "slo_fail");
    const stage_row back = stage_row_from_json(to_json(r));
    BOOST_TEST(std::isinf(back.ttfa.p99.value()));
    BOOST_TEST(back.ttfa.p95.value() == 100.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(!back.slo_pass);
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

    // A sweep.json from before stages ran until decided still reads.
    r.undecided = true;
    r.queue.overload_excluded = true;
    auto older = to_json(r);
    older.erase("undecided");
    older["queue"].as_object().erase("overload_excluded");
    older["queue"].as_object().erase("growth_sd");
    const stage_row old_row = stage_row_from_json(older);
    BOOST_TEST(!old_row.undecided);
    BOOST_TEST(!old_row.queue.overload_excluded);
    BOOST_TEST(old_row.verdict == r.verdict);
}

BOOST_AUTO_TEST_CASE(the_knee_is_the_last_stage_that_follows) {
    // Out of rate order, as a bisection runs them; the 16 req/s stage
    // completes only half of what it was sent.
    std::vector<stage_row> rows = {stage(0, 4, 100), stage(1, 16, 50), stage(2, 8, 100)};
    const auto a = analyse_sweep(rows, {}, false, 30);
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
    // Numbered as it ran (the progress line said "stage 2: 8 req/s"), listed in rate order.
    BOOST_TEST(md.find("| 2 | 8 | 8 |") != std::string::npos, md);
    BOOST_TEST(md.find("saturation knee |\n") != std::string::npos, md);
    BOOST_TEST(md.find("Little's law") != std::string::npos, md);
    const auto json = to_json(report);
    BOOST_TEST(json.at("knees").at("slo").at("explanation").as_string() == "no --slo given");
    BOOST_TEST(json.at("mode").as_string() == "open-loop");
}

BOOST_AUTO_TEST_CASE(goodput_never_exceeds_achieved_throughput) {
    // Every request met the goodput SLOs, and the drain made the run's own
    // duration short next to the window: goodput over the whole run (good /
    // duration) would read above the steady-state achieved rate.
    run_stats s = healthy();
    s.started = 101;
    s.good = s.completed;
    s.steady_window_s = 20;
    s.steady_completed = 9;
    const auto result = make_run_result(s, open_loop());
    const auto r = make_stage_row(0, 5, 0, result, false, {}, 0.95);
    BOOST_TEST(result.request_goodput > r.achieved_rate);  // the run's figure, over another window
    BOOST_TEST(r.goodput <= r.achieved_rate);
    BOOST_TEST(r.goodput == r.achieved_rate, boost::test_tools::tolerance(1e-12));
    s.good = s.completed / 2;
    const auto half = make_stage_row(0, 5, 0, make_run_result(s, open_loop()), false, {}, 0.95);
    BOOST_TEST(half.goodput == half.achieved_rate * 0.5, boost::test_tools::tolerance(1e-12));
}

BOOST_AUTO_TEST_CASE(the_queue_decides_saturation_and_says_so) {
    // A stage that followed its rate but whose in-flight count climbed all
    // window long is saturated, and the report names the queue as the evidence.
    run_stats s = healthy();
    s.started = 101;
    s.first_intended_ns = 0;
    s.steady_window_s = 20;
    s.steady_completed = 100;
    s.inflight_step_ns = 100'000'000;
    for (int i = 0; i <= 200; ++i) s.inflight_samples.push_back(static_cast<std::uint32_t>(3 + i / 10));
    const auto grew = make_stage_row(1, 5, 0, make_run_result(s, open_loop()), false, {}, 0.95);
    BOOST_TEST(grew.follows);
    BOOST_TEST(grew.saturated);
    BOOST_TEST(grew.verdict == "saturated");
    BOOST_TEST(grew.saturation_evidence().find("saturated: in flight grew") == 0u, grew.saturation_evidence());
    s.inflight_samples.assign(201, 3);
    const auto flat = make_stage_row(0, 4, 0, make_run_result(s, open_loop()), false, {}, 0.95);
    BOOST_TEST(flat.verdict == "good");
    BOOST_TEST(flat.saturation_evidence().find("not saturated: in flight 3.0 → 3.0") == 0u, flat.saturation_evidence());

    const auto a = analyse_sweep({flat, grew}, {}, false, 30);
    BOOST_TEST(a.knees.saturation.found);
    BOOST_TEST(a.knees.saturation.rate == 4.0);
    BOOST_TEST(a.knees.saturation.explanation.find("above it 5 req/s (stage 1) saturated: in flight grew") !=
                   std::string::npos,
               a.knees.saturation.explanation);
}

BOOST_AUTO_TEST_CASE(no_saturation_is_said_in_words_not_as_a_bend) {
    // Latency rises (a bend) but no queue grew: "saturation not reached",
    // and the bend keeps its own name.
    std::vector<stage_row> rows;
    for (int i = 0; i < 5; ++i) {
        stage_row r = stage(static_cast<std::size_t>(i), 2.0 * (i + 1), 100);
        r.ttft.p50 = i < 3 ? 100.0 : 100.0 * (1 << (2 * (i - 2)));
        rows.push_back(r);
    }
    const auto a = analyse_sweep(rows, {}, false, 30);
    BOOST_TEST(!a.knees.saturation.found);
    BOOST_TEST(a.knees.saturation.explanation.find("saturation not reached up to 10 req/s") == 0u,
               a.knees.saturation.explanation);
    BOOST_TEST_REQUIRE(a.knees.latency.has_value());
    BOOST_TEST(a.knees.latency->found);
    sweep_report report;
    report.analysis = a;
    const std::string md = sweep_markdown(report);
    BOOST_TEST(md.find("latency bend |") != std::string::npos, md);
    BOOST_TEST(md.find("saturation knee |") == std::string::npos, md);
    BOOST_TEST(md.find("Saturation not reached up to 10 req/s") != std::string::npos, md);
}

// An interrupted sweep: the cut stage is shown as cut and never judged, and
// no knee is claimed past the stages judged ("saturation not reached" is not said).
BOOST_AUTO_TEST_CASE(a_cut_stage_is_shown_as_cut_and_never_judged) {
    sweep_report report;
    report.target = "sim:cpu-small";
    report.analysis = analyse_sweep({stage(0, 2, 100), stage(1, 4, 100)}, {}, false, 0);
    BOOST_TEST(report.analysis.knees.saturation.explanation.find("saturation not reached up to 4 req/s") == 0u);
    stage_row cut = stage(2, 8, 100);  // its part of a window followed: judged, it would be "good"
    cut.verdict = "cut";
    cut.dir = "stage-02-8ps";
    report.cut = cut;
    report.interrupted = true;
    note_interrupted(report.analysis, report.cut);
    BOOST_TEST(report.analysis.stages.size() == 2u);
    BOOST_TEST(report.analysis.knees.saturation.explanation ==
               "not known: the sweep was cut in stage 2 (8 req/s); no knee in the 2 stages judged, up to 4 req/s");
    BOOST_TEST(report.analysis.capacity.text == "The sweep was cut in stage 2 (8 req/s) before a knee: no capacity figure.");

    const std::string md = sweep_markdown(report);
    BOOST_TEST(md.find("**Interrupted (Ctrl-C or SIGTERM) during stage 2 (8 req/s): that stage is cut, not judged (its "
                       "results so far are in stage-02-8ps); the knees are judged on the 2 stages before it.**") <
                   md.find("| stage |"),
               md);
    BOOST_TEST(md.find("| 2 | 8 | ") != std::string::npos, md);
    BOOST_TEST(md.find("| cut: not judged |  |\n") != std::string::npos, md);
    BOOST_TEST(md.find("not reached") == std::string::npos, md);
    BOOST_TEST(md.find("| good") != std::string::npos, md);  // the stages before it keep their verdicts
    BOOST_TEST(sweep_csv(report).find("\"cut: not judged\",\"\"\n") != std::string::npos);

    const auto json = to_json(report);
    BOOST_TEST(json.at("interrupted").as_bool());
    BOOST_TEST(json.at("cut_stage").at("verdict").as_string() == "cut");
    BOOST_TEST(json.at("stages").as_array().size() == 2u);
    BOOST_TEST(json.at("knees").at("saturation").at("found").as_bool() == false);

    // Interrupted between stages: nothing cut, the words say so.
    sweep_report between;
    between.analysis = analyse_sweep({stage(0, 2, 100)}, {}, false, 0);
    between.interrupted = true;
    note_interrupted(between.analysis, between.cut);
    BOOST_TEST(between.analysis.knees.saturation.explanation ==
               "not known: the sweep was interrupted between stages; no knee in the 1 stage judged, up to 2 req/s");
    BOOST_TEST(interruption_text(between) ==
               "Interrupted (Ctrl-C or SIGTERM) between stages; the knees are judged on the 1 stage before it.");

    // A knee found before the interrupt stands.
    sweep_analysis found = analyse_sweep({stage(0, 2, 100), stage(1, 4, 50)}, {}, false, 0);
    const std::string before = found.knees.saturation.explanation;
    note_interrupted(found, cut);
    BOOST_TEST(found.knees.saturation.explanation == before);
}

BOOST_AUTO_TEST_SUITE_END()
