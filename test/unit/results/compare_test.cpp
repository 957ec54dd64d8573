#include <boost/test/unit_test.hpp>

#include "openloop/results/compare.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <random>
#include <stdexcept>

BOOST_AUTO_TEST_SUITE(unit_compare)

using namespace openloop;
namespace json = boost::json;

namespace {

constexpr std::int64_t ms = 1'000'000;

// n requests, TTFT around ttft_ms (spread by a seeded exponential), TPOT 20 ms, 10 tokens.
compared_run run(const char* name, int n, double ttft_ms, std::uint64_t seed, int failed = 0) {
    compared_run r;
    r.name = name;
    std::mt19937_64 rng(seed);
    std::exponential_distribution<double> spread(1.0 / (ttft_ms / 4));
    for (int i = 0; i < n; ++i) {
        request_sample s;
        s.ok = i >= failed;
        if (s.ok) {
            s.ttft = static_cast<std::int64_t>((ttft_ms * 0.75 + spread(rng)) * ms);
            s.tpot = 20 * ms;
            s.e2e = s.ttft + 9 * s.tpot;
            s.ttfa = s.ttft;  // a model that does not think answers with its first token
            s.output_tokens = 10;
        }
        r.requests.push_back(s);
    }
    r.duration_s = n / 10.0;
    return r;
}

const metric_change& find(const std::vector<metric_change>& c, const std::string& name) {
    for (const auto& m : c)
        if (m.name == name) return m;
    throw std::out_of_range(name);
}

}  // namespace

BOOST_AUTO_TEST_CASE(two_samples_of_one_distribution_are_within_noise) {
    const auto changes = compare_runs(run("a", 500, 100, 1), run("b", 500, 100, 2));
    BOOST_TEST(changes.size() == compared_metric_names().size());
    for (const auto& c : changes) BOOST_TEST(change_verdict_name(c.verdict) == "within noise", c.name);
    const auto& p99 = find(changes, "ttft_p99");
    BOOST_TEST(p99.low < 0.0);
    BOOST_TEST(p99.high > 0.0);
}

BOOST_AUTO_TEST_CASE(a_slower_run_is_worse_and_a_faster_one_better) {
    const auto changes = compare_runs(run("a", 500, 100, 1), run("b", 500, 130, 2));
    for (const char* m : {"ttft_mean", "ttft_p50", "ttft_p90", "e2e_mean", "e2e_p50"})
        BOOST_TEST(change_verdict_name(find(changes, m).verdict) == "worse", m);
    BOOST_TEST(find(changes, "ttft_mean").relative() > 0.2);
    BOOST_TEST(change_verdict_name(find(changes, "tpot_p50").verdict) == "within noise");  // identical
    const auto back = compare_runs(run("b", 500, 130, 2), run("a", 500, 100, 1));
    BOOST_TEST(change_verdict_name(find(back, "ttft_mean").verdict) == "better");
}

BOOST_AUTO_TEST_CASE(errors_and_throughput_have_intervals_too) {
    const auto changes = compare_runs(run("a", 1000, 100, 1), run("b", 1000, 100, 1, 100));
    BOOST_TEST(change_verdict_name(find(changes, "error_rate").verdict) == "worse");
    BOOST_TEST(find(changes, "error_rate").now == 0.1);
    const auto& thr = find(changes, "request_throughput");
    BOOST_TEST(thr.base == 10.0);
    BOOST_TEST(thr.now == 9.0);
    BOOST_TEST(change_verdict_name(thr.verdict) == "within noise");  // 1000 vs 900 completions: Poisson overlaps
    BOOST_TEST(thr.method == "poisson");
}

BOOST_AUTO_TEST_CASE(the_same_inputs_give_the_same_intervals) {
    const auto a = compare_runs(run("a", 300, 100, 1), run("b", 300, 110, 2));
    const auto b = compare_runs(run("a", 300, 100, 1), run("b", 300, 110, 2));
    for (std::size_t i = 0; i < a.size(); ++i) {
        BOOST_TEST(a[i].low == b[i].low);
        BOOST_TEST(a[i].high == b[i].high);
    }
}

BOOST_AUTO_TEST_CASE(a_change_under_the_minimum_is_noise_however_tight) {
    compare_options o;
    auto a = run("a", 200, 100, 1), b = a;
    for (auto& s : b.requests) s.tpot += ms / 10;  // +0.5 %, every request
    BOOST_TEST(change_verdict_name(find(compare_runs(a, b, o), "tpot_p50").verdict) == "within noise");
    o.min_change = 0.001;
    BOOST_TEST(change_verdict_name(find(compare_runs(a, b, o), "tpot_p50").verdict) == "worse");
}

BOOST_AUTO_TEST_CASE(gates_parse_and_fail_only_on_significant_changes_past_them) {
    const gate g = parse_gate("ttft_p99>+10%");
    BOOST_TEST(g.metric == "ttft_p99");
    BOOST_TEST(g.above);
    BOOST_TEST(g.percent == 10.0);
    const gate fall = parse_gate("request_throughput<-5%");
    BOOST_TEST(!fall.above);
    BOOST_TEST(fall.percent == -5.0);
    for (const char* bad : {"ttft_p99", "nope>+10%", "ttft_p99>+10", "ttft_p99>ten%", ">+1%", "ttft_p99>%"})
        BOOST_CHECK_THROW(parse_gate(bad), std::invalid_argument);

    const auto worse = compare_runs(run("a", 500, 100, 1), run("b", 500, 130, 2));
    BOOST_TEST(gate_failure(parse_gate("ttft_mean>+10%"), worse).has_value());
    BOOST_TEST(!gate_failure(parse_gate("ttft_mean>+50%"), worse).has_value());  // significant, but not that much
    BOOST_TEST(!gate_failure(parse_gate("ttft_mean<-10%"), worse).has_value());  // the other direction
    const auto same = compare_runs(run("a", 500, 100, 1), run("b", 500, 100, 2));
    BOOST_TEST(!gate_failure(parse_gate("ttft_p99>+0%"), same).has_value());      // noise never fails a gate
}

// A percentile with fewer than 5 requests past it in a run is not judged: the
// bootstrap of a run's few largest values claims what they cannot show.
BOOST_AUTO_TEST_CASE(a_percentile_with_few_requests_past_it_is_not_judged) {
    const auto small = compare_runs(run("a", 40, 100, 1), run("b", 40, 100, 2));
    for (const char* m : {"ttft_p90", "ttft_p99", "tpot_p99", "e2e_p90", "e2e_p99"})
        BOOST_TEST(change_verdict_name(find(small, m).verdict) == "too few requests", m);
    BOOST_TEST(change_verdict_name(find(small, "ttft_p50").verdict) == "within noise");
    BOOST_TEST(change_verdict_name(find(small, "ttft_mean").verdict) == "within noise");
    // Even a real change: the gate is said not to be judged, and does not fail.
    const auto slower = compare_runs(run("a", 40, 100, 1), run("b", 40, 300, 2));
    BOOST_TEST(change_verdict_name(find(slower, "ttft_p99").verdict) == "too few requests");
    BOOST_TEST(change_verdict_name(find(slower, "ttft_p50").verdict) == "worse");
    BOOST_TEST(!gate_failure(parse_gate("ttft_p99>+10%"), slower).has_value());
    BOOST_TEST(gate_unjudged(parse_gate("ttft_p99>+10%"), slower).value_or("") ==
               "gate ttft_p99>+10% not judged: ttft_p99 needs at least 500 requests in each run (5 past p99)");
    BOOST_TEST(gate_unjudged(parse_gate("e2e_p90>+10%"), slower).value_or("").find("at least 50 requests") != std::string::npos);
    BOOST_TEST(!gate_unjudged(parse_gate("ttft_p50>+10%"), slower).has_value());
    // 500 requests put 5 past p99: judged.
    const auto enough = compare_runs(run("a", 500, 100, 1), run("b", 500, 100, 2));
    BOOST_TEST(change_verdict_name(find(enough, "ttft_p99").verdict) == "within noise");
}

// A request that never answered (it spent max_tokens thinking) is infinitely late in a
// comparison as in the run: a new run where one in twenty never answered has an infinite TTFA
// p99, worse than any finite one, while its median is the same.
BOOST_AUTO_TEST_CASE(requests_that_never_answered_make_the_ttfa_percentiles_past_them_infinite) {
    const auto log = [](int n, int never) {
        std::string out;
        for (int i = 0; i < n; ++i) {
            const std::int64_t t0 = 1'000'000 * ms + i * 100 * ms;
            json::object o{{"index", i},          {"warmup", false},        {"status", "ok"},
                           {"intended_ns", t0},   {"sent_ns", t0},          {"first_token_ns", t0 + 50 * ms},
                           {"last_token_ns", t0 + 150 * ms}, {"end_ns", t0 + 151 * ms}, {"input_tokens", 10},
                           {"output_tokens", 8},  {"max_tokens", 8},        {"output_tokens_source", "usage"},
                           {"reasoning_tokens", 4}, {"answer_tokens", 4},   {"reasoning_source", "usage"}};
            if (i % 20 == 0 && i / 20 < never) {
                o["first_answer_ns"] = nullptr;
                o["ended_thinking"] = true;
            } else {
                o["first_answer_ns"] = t0 + 100 * ms + (i % 7) * ms;
            }
            out += json::serialize(o) + "\n";
        }
        return out;
    };
    compared_run base, now;
    base.name = "a";
    now.name = "b";
    rebuild_stats(log(600, 0), &base.requests);
    rebuild_stats(log(600, 30), &now.requests);
    base.duration_s = now.duration_s = 60;
    const auto changes = compare_runs(base, now);
    const metric_change& p99 = find(changes, "ttfa_p99");
    BOOST_TEST(std::isfinite(p99.base));
    BOOST_TEST(std::isinf(p99.now));
    BOOST_TEST(change_verdict_name(p99.verdict) == "worse");
    BOOST_TEST(std::isinf(find(changes, "ttfa_mean").now));
    BOOST_TEST(change_verdict_name(find(changes, "ttfa_p50").verdict) == "within noise");
    BOOST_TEST(gate_failure(parse_gate("ttfa_p99>+10%"), changes).has_value());
    BOOST_TEST(!gate_failure(parse_gate("ttfa_p50>+10%"), changes).has_value());
    // Both runs infinite at the p99: no change to judge there.
    const auto both = compare_runs(now, now);
    BOOST_TEST(change_verdict_name(find(both, "ttfa_p99").verdict) == "within noise");
    BOOST_TEST(compare_json(now, now, both, {}).at("metrics").at("ttfa_p99").at("new") == "inf");
}

// What differs is said before the table: another target is the server under
// test; another rate is another workload, and the JSON says so.
BOOST_AUTO_TEST_CASE(differences_are_said_before_the_table) {
    compared_run a = run("a", 50, 100, 1), b = run("b", 50, 100, 2);
    const auto described = [](const char* target, double rate) {
        run_context c;
        c.target = target;
        c.request_rate = rate;
        c.config = boost::json::object{{"rate", rate}, {"input-len", "64"}, {"seed", 1}};
        return c;
    };
    const std::vector<metric_change> changes = compare_runs(a, b);
    BOOST_TEST(!match_runs(a, b).checked());
    BOOST_TEST(compare_markdown(a, b, changes, {}).find("Workloads not checked: a has no run.json.") != std::string::npos);

    a.context = described("http://x/v1", 4);
    b.context = described("http://y/v1", 4);
    run_match m = match_runs(a, b);
    BOOST_TEST(m.checked());
    BOOST_TEST(!m.workloads_differ());
    std::string md = compare_markdown(a, b, changes, {});
    const std::size_t said = md.find("The servers under test differ; the workload is the same.\n\n- target: `http://x/v1` "
                                     "vs `http://y/v1`, the server under test\n");
    BOOST_TEST(said != std::string::npos, md);
    BOOST_TEST(said < md.find("| metric |"));

    b.context = described("http://y/v1", 8);
    m = match_runs(a, b);
    BOOST_TEST(m.workloads_differ());
    md = compare_markdown(a, b, changes, {});
    BOOST_TEST(md.find("**The workloads differ**") < md.find("| metric |"), md);
    BOOST_TEST(md.find("gates are refused.") != std::string::npos, md);
    BOOST_TEST(md.find("- rate: `4` vs `8`\n") != std::string::npos, md);
    compare_options allowed;
    allowed.allow_mismatch = true;
    BOOST_TEST(compare_markdown(a, b, changes, allowed).find("gates judged anyway (--allow-mismatch)") != std::string::npos);
    const boost::json::object j = compare_json(a, b, changes, allowed);
    BOOST_TEST(j.at("workloads_differ").as_bool());
    BOOST_TEST(j.at("allow_mismatch").as_bool());
    BOOST_TEST(j.at("differences").as_array().size() == 2u);
}

// Two mixed runs: the new one's sql-lora answers twice as late, its base as before. The
// per-model comparison finds it where the total only blurs it; models are matched by name,
// whatever their place in each run, and one only a run has is left out.
BOOST_AUTO_TEST_CASE(mixed_runs_are_compared_model_by_model) {
    const auto mixed = [](const char* name, double lora_ttft_ms, std::uint64_t seed, bool lora_first) {
        compared_run base = run(name, 400, 100, seed), lora = run(name, 400, lora_ttft_ms, seed + 10);
        compared_run r;
        r.name = name;
        r.duration_s = 80;
        r.models = lora_first ? std::vector<std::string>{"sql-lora", "base", "chat"}
                              : std::vector<std::string>{"base", "sql-lora"};
        for (request_sample s : base.requests) {
            s.model = lora_first ? 1 : 0;
            r.requests.push_back(s);
        }
        for (request_sample s : lora.requests) {
            s.model = lora_first ? 0 : 1;
            r.requests.push_back(s);
        }
        return r;
    };
    const compared_run a = mixed("a", 100, 1, false), b = mixed("b", 200, 3, true);
    const std::vector<model_changes> models = compare_models(a, b);
    BOOST_TEST_REQUIRE(models.size() == 2u);
    BOOST_TEST(models[0].model == "base");
    BOOST_TEST(change_verdict_name(find(models[0].changes, "ttft_p50").verdict) == "within noise");
    BOOST_TEST(models[1].model == "sql-lora");
    BOOST_TEST(change_verdict_name(find(models[1].changes, "ttft_p50").verdict) == "worse");
    BOOST_TEST(find(models[1].changes, "ttft_p50").now > 1.5 * find(models[1].changes, "ttft_p50").base);
    const auto json = compare_json(a, b, compare_runs(a, b), {});
    BOOST_TEST(json.at("by_model").as_object().size() == 2u);
    const std::string text = compare_markdown(a, b, compare_runs(a, b), {});
    BOOST_TEST(text.find("## Model `sql-lora`") != std::string::npos);
    BOOST_TEST(compare_models(run("x", 10, 100, 1), a).empty());  // a run that is not mixed

    // --fail-on gates a model by k6's tag: the lora's rise fails it, the base's does not.
    const gate lora = parse_gate("ttft_p50{model=sql-lora}>+20%"), base_gate = parse_gate("ttft_p50{model=base}>+20%");
    BOOST_TEST(lora.model == "sql-lora");
    BOOST_TEST(lora.metric == "ttft_p50");
    const auto total = compare_runs(a, b);
    BOOST_TEST(gate_failure(lora, total, models).value_or("").find("ttft_p50{model=sql-lora}>+20%: ttft_p50 changed +") == 0u);
    BOOST_TEST(!gate_failure(base_gate, total, models));
    BOOST_TEST(gate_failure(parse_gate("ttft_p50{model=chat}>+20%"), total, models).value_or("").find("no model 'chat'") !=
               std::string::npos);
    BOOST_CHECK_THROW(parse_gate("ttft_p50{model=}>+20%"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_gate("ttft_p50{model=a>+20%"), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
