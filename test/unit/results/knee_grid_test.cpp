#include <boost/test/unit_test.hpp>

// The sweep's saturation rule end to end in virtual time: the simulator's
// cost model (sim/engine) serves the sweep's own Poisson schedules
// (load/arrival); each stage yields run_stats as the reporter would (the
// in-flight series on its 100 ms grid, latencies, the steady window), the
// real stage row judges it, the real rate planner picks the next rate, and
// the real report finds the knee; the real stage_end decides how long each
// stage sends. Every knee must lie within ±10 % of the cost model's
// capacity, on every workload and seed.

#include "openloop/load/arrival.hpp"
#include "openloop/results/knee.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/sweep_report.hpp"
#include "openloop/run/stage_end.hpp"
#include "openloop/run/sweep_runner.hpp"
#include "openloop/sim/engine.hpp"
#include "run_fixtures.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_knee_grid)

using namespace openloop;

namespace {

constexpr std::int64_t grid_ns = 100'000'000;  // the reporter's in-flight sampling step

struct sweep_flags {
    double start_rate = 1;
    double precision = 0.05;
    double stage_s = 10;
    std::uint64_t min_samples = 150;
    double warmup_s = 5;
    std::uint32_t rate_block = sweep_options{}.rate_block;
};

struct request {
    std::int64_t intended = 0;
    std::int64_t first_token = -1;
    bool measured = false;
    bool done = false;
};

// One stage as the runner drives it: warm-up at the stage rate, then
// measured arrivals until stage_end lets it stop, then a drain; aborted when
// in flight passes the overload bound.
struct stage_run {
    run_stats stats;
    bool overloaded = false;
};

stage_run run_stage(const cost_model& model, int in, int out, double rate, std::uint64_t seed, double warmup_s,
                    const sweep_flags& f, std::size_t overload_inflight, double base_e2e_s) {
    engine eng(model);
    arrival_params ap;
    ap.kind = arrival_kind::poisson;
    ap.rate = rate;
    ap.seed = seed;
    ap.count_block = f.rate_block;
    arrival_process arrivals(ap);
    stage_run sr;
    run_stats& st = sr.stats;
    st.inflight_step_ns = grid_ns;
    const auto warmup_ns = static_cast<std::int64_t>(warmup_s * 1e9);
    stage_end_options eo;
    eo.min_s = f.stage_s;
    eo.min_requests = f.min_samples;
    eo.rate = rate;
    eo.base_e2e_s = base_e2e_s;
    eo.step_s = static_cast<double>(grid_ns) / 1e9;
    stage_end end(eo);
    // Every request sent, by its engine id (the order sent): a lookup per
    // emission, which a hash map made half this test's time at -O0 under ASan.
    std::vector<request> sent;
    std::size_t in_flight = 0;
    std::vector<std::int64_t> ends;  // every completion, warm-up included, as the reporter keeps them
    std::optional<std::int64_t> next = arrivals.next_ns();
    bool sending = true;
    std::int64_t now = 0, next_sample = 0, last_intended = 0;
    const auto sample_to = [&](std::int64_t t) {
        for (; next_sample <= t; next_sample += grid_ns) {
            st.inflight_samples.push_back(static_cast<std::uint32_t>(in_flight));
            if (st.started > 0) end.sample(in_flight);
        }
    };
    while (sending || in_flight > 0) {
        while (sending && next && *next <= now) {
            const std::int64_t t = *next;
            sample_to(t);
            request r{t, -1, t >= warmup_ns};
            if (r.measured) {
                if (st.started == 0) st.first_intended_ns = t;
                ++st.started;
                last_intended = t;
            }
            sent.push_back(r);
            ++in_flight;
            eng.add(seq_request{sent.size() - 1, in, out, {}});
            next = arrivals.next_ns();
            if (r.measured && end.done(static_cast<double>(t - st.first_intended_ns) / 1e9, st.started)) sending = false;
            if (in_flight > overload_inflight) {
                sr.overloaded = true;
                sending = false;
            }
        }
        if (sr.overloaded) break;  // the runner cancels what is left
        const step_result step = eng.step();
        if (step.duration_ns == 0) {
            if (!next) break;
            now = std::max(now, *next);
            continue;
        }
        now += step.duration_ns;
        sample_to(now - 1);
        for (const emission& e : step.out) {
            request& r = sent[e.id];
            if (r.done) continue;
            if (r.first_token < 0 && e.tokens > 0) r.first_token = now;
            if (!e.finished) continue;
            ends.push_back(now);
            if (r.measured) {
                ++st.completed;
                ++st.good;
                st.ttft.record(r.first_token - r.intended);
                st.e2e.record(now - r.intended);
                end.completed(static_cast<double>(now - r.intended) / 1e9);
                st.lag.record(0);
                st.last_end_ns = std::max(st.last_end_ns, now);
            }
            r.done = true;
            --in_flight;
        }
    }
    if (sr.overloaded) {
        for (const request& r : sent) st.unfinished += r.measured && !r.done;
    }
    st.steady_window_s = static_cast<double>(last_intended - st.first_intended_ns) / 1e9;
    st.steady_completed = static_cast<std::uint64_t>(std::count_if(
        ends.begin(), ends.end(), [&](std::int64_t t) { return t >= st.first_intended_ns && t <= last_intended; }));
    return sr;
}

// The sweep runner's loop, in virtual time: the same planner, warm-up rule
// and abort bound, the same row and report.
sweep_analysis virtual_sweep(const cost_model& model, int in, int out, std::uint64_t seed, const sweep_flags& f,
                             double max_rate) {
    planner_options po;
    po.max_rate = max_rate;  // a rule that never sees saturation stops here, and fails
    po.start_rate = f.start_rate;
    po.precision = f.precision;
    rate_planner planner(po);
    std::vector<stage_row> rows;
    double warmup = f.warmup_s;
    double e2e_base_s = 0;
    while (auto rate = planner.next_rate()) {
        const std::size_t index = rows.size();
        const auto bound = static_cast<std::size_t>(std::max(64.0, 30 * *rate * std::max(1.0, e2e_base_s)));
        stage_run sr = run_stage(model, in, out, *rate, seed + index, warmup, f, bound, e2e_base_s);
        run_context context = run_fixtures::open_loop();
        context.request_rate = *rate;
        stage_row row = make_stage_row(index, *rate, 0, make_run_result(std::move(sr.stats), context), sr.overloaded, {}, 0.95,
                                       e2e_base_s * 1000);
        if (index == 0) e2e_base_s = row.e2e.p50.value_or(0) / 1000.0;
        if (row.good()) warmup = std::min(60.0, std::max(f.warmup_s, 1.5 * row.e2e.p90.value_or(0) / 1000.0));
        planner.record(row.good());
        rows.push_back(std::move(row));
    }
    return analyse_sweep(rows, {}, false, 30);
}

struct grid_cell {
    const char* preset;
    int in;
    int out;
};

}  // namespace

BOOST_AUTO_TEST_CASE(every_knee_lies_within_ten_percent_of_capacity) {
    const sweep_flags issue{};  // --rates auto, no SLO, --min-samples 150 --stage-duration 10s --precision 5%
    // Short and long prompts and outputs on both presets (E2E from 0.2 s to
    // tens of seconds next to a 10 s stage), five seeds each.
    const grid_cell cells[] = {
        {"cpu-small", 32, 8},    {"cpu-small", 64, 32},   {"cpu-small", 256, 64},  {"cpu-small", 512, 128},
        {"cpu-small", 1024, 16}, {"cpu-small", 128, 16},  {"cpu-small", 2048, 128}, {"cpu-small", 512, 256},
        {"cpu-small", 128, 512}, {"h100-8b", 32, 8},      {"h100-8b", 64, 32},     {"h100-8b", 256, 64},
        {"h100-8b", 512, 128},   {"h100-8b", 1024, 16},   {"h100-8b", 128, 16},    {"h100-8b", 2048, 128},
        {"h100-8b", 512, 256},   {"h100-8b", 128, 512},
    };
    for (const grid_cell& c : cells) {
        const cost_model model = *find_preset(c.preset);
        const double capacity = predict_capacity(model, c.in, c.out).max_request_rate;
        for (const std::uint64_t seed : {1, 2, 3, 4, 5}) {
            BOOST_TEST_CONTEXT(c.preset << " " << c.in << "/" << c.out << " seed " << seed << ", capacity "
                                        << capacity) {
                const sweep_analysis a = virtual_sweep(model, c.in, c.out, seed * 1000, issue, 4 * capacity);
                const knee& k = a.knees.saturation;
                BOOST_TEST_MESSAGE(c.preset << " " << c.in << "/" << c.out << " seed " << seed << ": knee " << k.rate
                                            << " / capacity " << capacity << " = " << k.rate / capacity  << ", sent " << a.stages[k.stage].sent_rate / capacity);
                BOOST_TEST_REQUIRE(k.found, k.explanation);
                BOOST_TEST(k.rate >= 0.9 * capacity, k.explanation);
                BOOST_TEST(k.rate <= 1.1 * capacity, k.explanation);
                // One rule: the stage at the knee is good, the one above it saturated.
                BOOST_TEST(a.stages[k.stage].verdict == "good");
                BOOST_TEST(a.stages[k.break_stage].saturated);
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
