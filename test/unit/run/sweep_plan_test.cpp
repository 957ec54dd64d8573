#include <boost/test/unit_test.hpp>

#include "openloop/load/workload.hpp"
#include "openloop/results/slo.hpp"
#include "openloop/results/sweep_report.hpp"
#include "openloop/run/sweep_plan.hpp"

#include <filesystem>

BOOST_AUTO_TEST_SUITE(unit_sweep_plan)

using namespace openloop;

namespace {

sweep_options open_sweep() {
    sweep_options s;
    s.base.arrival.seed = 7;
    s.base.arrival.profile = parse_rate_profile("2:60");
    s.base.warmup_requests = 20;
    s.base.duration_s = 600;
    s.base.num_requests = 5;
    s.stage_s = 30;
    s.rate_block = 50;
    s.max_extension = 4;
    s.out_dir = "sweep-out";
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(min_samples_follow_the_highest_slo_percentile) {
    sweep_options s;
    BOOST_TEST(stage_min_samples(s) == samples_for_percentile(99.0));  // p99 when no SLO judges one
    s.slos = {parse_slo("ttft_p90=1s"), parse_slo("e2e_p99.9=10s"), parse_slo("error_rate=1%")};
    BOOST_TEST(stage_min_samples(s) == samples_for_percentile(99.9));
    s.min_samples = 12;
    BOOST_TEST(stage_min_samples(s) == 12u);
}

// An open-loop stage: the base's workload and limits, its own rate, bounds, arrivals and prompts.
BOOST_AUTO_TEST_CASE(an_open_stage_runs_its_rate_with_fresh_arrivals_and_prompts) {
    const sweep_options s = open_sweep();
    const stage_plan p = plan_stage(s, 400, {3, 8, 0, 6, 0.5, -1});
    const run_options& o = p.options;
    BOOST_TEST(p.dir == "stage-03-8ps");
    BOOST_TEST(o.out_dir == (std::filesystem::path("sweep-out") / "stage-03-8ps").string());
    BOOST_TEST(o.arrival.rate == 8.0);
    BOOST_TEST(o.arrival.seed == 10u);
    BOOST_TEST(o.arrival.profile.empty());
    BOOST_TEST(o.arrival.count_block == 50u);
    BOOST_TEST(o.workload.unique_from == std::uint64_t{3} << 40);
    BOOST_TEST(o.concurrency == 0);
    BOOST_TEST(o.warmup_requests == 0u);
    BOOST_TEST(o.warmup_s == 6.0);
    BOOST_TEST(o.duration_s == 30.0);
    BOOST_TEST(o.num_requests == 400u);
    BOOST_TEST(o.all_bounds);
    BOOST_TEST(!o.trace_sessions);
    BOOST_TEST(o.steady_throughput);
    BOOST_TEST(o.drain_s == 30.0);  // max(30 s, 4 x warm-up)
    BOOST_TEST(o.overload_inflight == 240u);  // 30 x rate x max(1 s, base E2E)
    BOOST_TEST(o.config.at("sweep_stage") == 3);
    BOOST_TEST_REQUIRE(o.stage_end.has_value());
    BOOST_TEST(o.stage_end->min_s == 30.0);
    BOOST_TEST(o.stage_end->min_requests == 400u);
    BOOST_TEST(o.stage_end->rate == 8.0);
    BOOST_TEST(o.stage_end->base_e2e_s == 0.5);
    BOOST_TEST(o.stage_end->max_extension == 4.0);
    // The sweep's own options are not touched.
    BOOST_TEST(s.base.arrival.seed == 7u);
    BOOST_TEST(s.base.warmup_requests == 20u);
}

BOOST_AUTO_TEST_CASE(a_closed_stage_counts_requests_per_worker) {
    sweep_options s = open_sweep();
    s.concurrency = {1, 16};
    s.base.drain_s = 12;  // given: kept
    s.abort_inflight = 99;
    const stage_plan p = plan_stage(s, 40, {1, 0, 16, 20, 2, 1'000});
    const run_options& o = p.options;
    BOOST_TEST(p.dir == "stage-01-c16");
    BOOST_TEST(o.concurrency == 16);
    BOOST_TEST(o.arrival.rate == 1.0);
    BOOST_TEST(o.duration_s == 0.0);
    BOOST_TEST(o.num_requests == 64u);  // at least 4 per worker
    BOOST_TEST(!o.stage_end.has_value());
    BOOST_TEST(o.drain_s == 12.0);
    BOOST_TEST(o.overload_inflight == 99u);
    BOOST_TEST(o.start_at_ns == 1'000);
}

// A trace stage replays the trace's gaps at the stage's rate, lap after lap.
BOOST_AUTO_TEST_CASE(a_trace_stage_loops_at_the_stage_rate) {
    sweep_options s = open_sweep();
    s.base.workload.trace_file = "t.csv";
    const stage_plan p = plan_stage(s, 10, {0, 4, 0, 5, 0, -1});
    BOOST_TEST(p.options.workload.trace_rate == 4.0);
    BOOST_TEST(p.options.workload.trace_loop);
    BOOST_TEST(p.options.drain_s == 30.0);
    BOOST_TEST(p.options.overload_inflight == 120u);
}

// A sharded stage: a fixed window, each shard its share of the abort and its own part directory.
BOOST_AUTO_TEST_CASE(a_sharded_stage_has_a_fixed_window_and_a_part_per_shard) {
    sweep_options s = open_sweep();
    s.base.shard = parse_shard("1/3");
    const stage_plan p = plan_stage(s, 10, {2, 10, 0, 5, 0, -1});
    BOOST_TEST(!p.options.stage_end.has_value());
    BOOST_TEST(p.options.overload_inflight == 100u);  // ceil(300 / 3)
    BOOST_TEST(p.options.out_dir ==
               (std::filesystem::path("sweep-out") / "stage-02-10ps" / "shard-1-of-3").string());
}

BOOST_AUTO_TEST_CASE(warm_up_grows_after_a_good_stage_only) {
    sweep_options s;
    s.warmup_s = 5;
    BOOST_TEST(next_warmup_s(s, 5, true, 2) == 5.0);     // 1.5 x 2 s is under the sweep's own
    BOOST_TEST(next_warmup_s(s, 5, true, 10) == 15.0);
    BOOST_TEST(next_warmup_s(s, 15, true, 100) == 60.0);  // at most a minute
    BOOST_TEST(next_warmup_s(s, 15, false, 100) == 15.0);
}

BOOST_AUTO_TEST_SUITE_END()
