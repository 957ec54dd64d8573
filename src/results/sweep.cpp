#include "openloop/results/sweep.hpp"

#include "openloop/results/sweep_row.hpp"

#include "openloop/results/knee.hpp"
#include "openloop/measure/json_text.hpp"
#include "openloop/results/summary_json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <cerrno>
#include <csignal>

#include <pthread.h>

namespace openloop {

namespace json = boost::json;
using namespace sweep_row;

namespace {

json::value opt(std::optional<double> v) { return v ? json::value(*v) : json::value(nullptr); }

// Mean and percentiles of one latency family from the summary, plus the p99's
// order-statistic confidence interval from the histogram itself.
json::object latency(const json::object& summary, const histogram& h, std::string_view key) {
    const std::string k(key);
    json::object o;
    o["mean"] = opt(number(summary, "mean_" + k + "_ms"));
    for (const char* p : {"p50", "p90", "p95", "p99", "p99.9", "max"})
        o[p] = opt(number(summary, std::string(p) + "_" + k + "_ms"));
    const auto ranks = percentile_ci(h.count(), 99.0);
    if (ranks.sufficient) {
        const auto ci = ci_values(ranks, h.count(), [&](double pct) { return static_cast<double>(h.percentile(pct)) / 1e6; });
        o["p99_ci"] = json::array{ci.lo, ci.hi};
    } else {
        o["p99_ci"] = nullptr;
    }
    return o;
}

// Reads a summary key ("p99_ttft_ms", "median_e2el_ms", "error_rate") from a
// stage row, so SLOs can be judged again on measured stages.
std::optional<double> row_lookup(const json::object& row, std::string_view key) {
    if (key == "error_rate") return number(row, "error_rate");
    if (key.size() < 4 || key.substr(key.size() - 3) != "_ms") return std::nullopt;
    const auto body = key.substr(0, key.size() - 3);
    const auto us = body.find('_');
    if (us == std::string_view::npos) return std::nullopt;
    std::string stat(body.substr(0, us));
    std::string metric(body.substr(us + 1));
    if (stat == "median") stat = "p50";
    if (metric == "e2el") metric = "e2e";
    return at(row, metric + "_ms", stat);
}

}  // namespace

std::uint64_t samples_for_percentile(double pct) {
    std::uint64_t lo = 1, hi = 1;
    while (!percentile_ci(hi, pct).sufficient) hi *= 2;
    while (lo < hi) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        if (percentile_ci(mid, pct).sufficient) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

json::object stage_row(std::size_t index, double offered_rate, int concurrency, const run_outcome& outcome,
                       const std::vector<slo>& slos, double follow_ratio, bool& good, double base_e2e_ms) {
    const auto s = summary_json(outcome.result);
    const auto& st = outcome.result.stats;
    json::object row;
    row["index"] = index;
    row["offered_rate"] = concurrency > 0 ? json::value(nullptr) : json::value(offered_rate);
    row["concurrency"] = concurrency > 0 ? json::value(concurrency) : json::value(nullptr);
    // Steady-state throughput (completions inside the send window) is what a
    // knee compares with the offered rate; the run's own figure includes the drain.
    const double achieved = st.steady_window_s > 0 ? st.steady_rate() : number(s, "request_throughput").value_or(0);
    row["achieved_rate"] = achieved;
    // Poisson arrivals make the realised rate differ from the nominal one by
    // ~1/sqrt(n); comparing completions with the arrivals actually sent keeps
    // that noise out of the achieved/offered ratio.
    const double sent_rate = st.steady_window_s > 0 && st.started > 1
                                 ? static_cast<double>(st.started - 1) / st.steady_window_s
                                 : offered_rate;
    row["sent_rate"] = sent_rate;
    // Failed requests were answered, not left queueing: they count towards
    // following the offered load, so that failures read as errors and not as
    // saturation. The error rate has a verdict of its own.
    // Requests openloop itself cancelled (the drain after the last send ran
    // out, or the stage was aborted) were not answered: that is queueing.
    const auto cancelled = st.failed_by_class[static_cast<std::size_t>(error_class::cancelled)];
    const double failed_share =
        st.started > 0 ? static_cast<double>(st.failed - cancelled) / static_cast<double>(st.started) : 0.0;
    const double answered = achieved + failed_share * sent_rate;
    row["follow_ratio"] = sent_rate > 0 ? json::value(answered / sent_rate) : json::value(nullptr);
    row["request_throughput"] = opt(number(s, "request_throughput"));
    row["output_throughput"] = opt(number(s, "output_throughput"));
    row["completed"] = st.completed;
    row["failed"] = st.failed;
    row["error_rate"] = opt(number(s, "error_rate"));
    if (const auto* e = s.if_contains("errors"); e && e->is_object()) row["errors"] = e->as_object();
    row["too_many_errors"] = outcome.result.validity.too_many_errors;
    row["goodput"] = opt(number(s, "request_goodput"));
    const auto e2e_mean = number(s, "mean_e2el_ms");
    row["mean_inflight"] = e2e_mean ? json::value(achieved * *e2e_mean / 1000.0) : json::value(nullptr);
    row["samples"] = st.completed;
    row["duration_s"] = st.duration_s();
    row["ttft_ms"] = latency(s, st.ttft, "ttft");
    row["tpot_ms"] = latency(s, st.tpot, "tpot");
    row["itl_ms"] = latency(s, st.itl, "itl");
    row["e2e_ms"] = latency(s, st.e2e, "e2el");
    row["lag_p99_ms"] = opt(number(s, "p99_lag_ms"));

    bool slo_pass = true;
    json::array checks;
    for (const auto& o : slos) {
        const auto c = check_slo(o, s);
        slo_pass = slo_pass && c.pass;
        checks.push_back(json::object{{"slo", o.text}, {"observed", opt(c.observed)}, {"pass", c.pass}});
    }
    row["slo_pass"] = slo_pass;
    row["slo_results"] = std::move(checks);
    // A shortfall also has to stand out from noise: below capacity the
    // arrivals-minus-completions of a window is the change in the in-flight
    // count, whose variance is about twice its mean L = rate x mean E2E.
    const double window = st.steady_window_s;
    const double deficit = (sent_rate - answered) * window;
    // Below capacity the latency stays near its low-load value; a stage whose
    // own E2E has run away (a backlog) must not widen its own allowance.
    double e2e_ms = e2e_mean.value_or(0);
    if (base_e2e_ms > 0) e2e_ms = std::min(e2e_ms, 2 * base_e2e_ms);
    const double in_flight = sent_rate * e2e_ms / 1000.0;
    row["deficit"] = deficit;
    // Past a 10 % shortfall no noise explains it.
    const bool follows = concurrency > 0 || sent_rate <= 0 || answered / sent_rate >= follow_ratio ||
                         (deficit <= 3 * std::sqrt(2 * std::max(1.0, in_flight)) && answered / sent_rate >= 0.9);
    row["follows"] = follows;
    row["aborted"] = outcome.overloaded;
    // The verdict is the server's; a generator that fell behind its schedule
    // is flagged beside it (its latencies still count from the intended times).
    row["valid"] = outcome.result.validity.valid;
    row["generator_ok"] = outcome.result.validity.generator_ok;
    std::string verdict = "good";
    if (outcome.overloaded) {
        verdict = "overloaded";
    } else if (!follows) {
        verdict = "saturated";
    } else if (outcome.result.validity.too_many_errors) {
        verdict = "errors";
    } else if (!slo_pass) {
        verdict = "slo_fail";
    }
    row["verdict"] = verdict;
    good = verdict == "good";
    return row;
}

json::object analyse_sweep(std::vector<json::object> rows, const std::vector<slo>& slos, bool closed_loop,
                           double think_time_s, double follow_ratio) {
    const char* x_key = closed_loop ? "concurrency" : "offered_rate";
    // Stages are numbered in rate order (a bisection runs them out of order);
    // "run" keeps the order they ran in, "dir" where their results are.
    std::sort(rows.begin(), rows.end(), [&](const json::object& a, const json::object& b) {
        return number(a, x_key).value_or(0) < number(b, x_key).value_or(0);
    });
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (!rows[i].contains("run")) rows[i]["run"] = rows[i]["index"];
        rows[i]["index"] = i;
    }
    std::vector<double> xs;
    std::vector<bool> pass;
    std::vector<slo_status> status;
    std::vector<stage_point> curve;
    for (const auto& r : rows) {
        const double x = number(r, x_key).value_or(0);
        xs.push_back(x);
        // Judged again from the row, so the same measured stages can be read
        // against other SLOs.
        const auto* f = r.if_contains("follows");
        const auto* a = r.if_contains("aborted");
        const auto* e = r.if_contains("too_many_errors");
        bool ok = (!f || !f->is_bool() || f->as_bool()) && !(a && a->is_bool() && a->as_bool()) &&
                  !(e && e->is_bool() && e->as_bool());
        for (const auto& o : slos)
            ok = ok && check_slo(o, [&](std::string_view key) { return row_lookup(r, key); }).pass;
        pass.push_back(ok);
        // With confidence: a p99 SLO holds only when its CI's upper end is under the limit.
        slo_status worst = ok ? slo_status::pass : slo_status::fail;
        if (ok) {
            for (const auto& o : slos) {
                if (o.metric == "error_rate") continue;
                const std::string family = (o.metric == "e2e" ? std::string("e2e") : o.metric) + "_ms";
                const auto point = at(r, family, o.stat == "p50" ? "p50" : o.stat);
                std::optional<double> upper;
                if (o.stat == "p99") {
                    if (const auto* f = r.if_contains(family); f && f->is_object()) {
                        if (const auto* ci = f->as_object().if_contains("p99_ci"); ci && ci->is_array())
                            upper = ci->as_array()[1].to_number<double>();
                    }
                }
                if (point) worst = std::min(worst, classify_slo(*point, upper, o.limit));
            }
        }
        status.push_back(worst);
        // Achieved scaled by nominal/sent, so the knee test sees achieved/sent.
        const double ratio = number(r, "follow_ratio").value_or(1.0);
        curve.push_back({x, closed_loop ? number(r, "achieved_rate").value_or(0) : x * ratio,
                         at(r, "ttft_ms", "p50").value_or(0)});
    }

    json::object knees;
    auto knee_json = [](const knee& k) {
        return json::object{{"found", k.found},     {"rate", k.rate},   {"interpolated_rate", k.interpolated_rate},
                            {"stage", k.stage},     {"method", k.method}, {"explanation", k.explanation},
                            {"below_range", k.below_range}};
    };
    std::optional<std::size_t> capacity_stage;
    if (!slos.empty() && !rows.empty()) {
        const auto k = find_confident_slo_knee(xs, status);
        json::object o{{"found", k.point.found},
                       {"rate", k.point.rate},
                       {"stage", k.point.found ? json::value(k.point.stage) : json::value(nullptr)},
                       {"explanation", k.point.explanation},
                       {"warning", k.point.warning},
                       {"confident_found", k.confident.found},
                       {"confident_rate", k.confident.rate}};
        knees["slo"] = std::move(o);
        if (k.point.found) capacity_stage = k.point.stage;
    } else {
        knees["slo"] = json::object{{"found", false}, {"rate", 0}, {"explanation", "no --slo given"}};
    }

    if (closed_loop) {
        // Throughput stops growing with concurrency: less than 5 % more for the next step.
        knee plateau;
        plateau.method = "throughput_plateau";
        plateau.explanation = "throughput grew with every concurrency step";
        for (std::size_t i = 1; i < curve.size(); ++i) {
            if (curve[i].achieved_rate < 1.05 * curve[i - 1].achieved_rate) {
                plateau.found = true;
                plateau.rate = curve[i - 1].offered_rate;
                plateau.stage = i - 1;
                plateau.break_stage = i;
                plateau.explanation = "throughput " + fmt("%.2f", curve[i].achieved_rate) + " req/s at concurrency " +
                                      fmt("%g", curve[i].offered_rate) + " is under 1.05 x " +
                                      fmt("%.2f", curve[i - 1].achieved_rate) + " at " + fmt("%g", curve[i - 1].offered_rate);
                break;
            }
        }
        knees["saturation"] = knee_json(plateau);
        if (!capacity_stage && plateau.found) capacity_stage = plateau.stage;
    } else {
        // Saturation is where throughput stops following the offered rate; the
        // latency bend (Kneedle on TTFT p50) is evidence, used only when
        // throughput followed everywhere.
        const knee thr = throughput_knee(curve, follow_ratio);
        const knee bend = kneedle_knee(curve);
        knee sat = thr.found || thr.below_range ? thr : bend;
        if (!thr.found && !bend.found && !thr.below_range) {
            sat.explanation = "throughput followed the offered rate at every stage" +
                              (curve.empty() ? std::string() : " (up to " + fmt("%g", curve.back().offered_rate) + " req/s)") +
                              ": saturation lies above the highest stage";
        }
        json::object s = knee_json(sat);
        knees["saturation"] = std::move(s);
        json::object l = knee_json(bend);
        knees["latency"] = std::move(l);
        if (!capacity_stage && sat.found) capacity_stage = sat.stage;
    }

    json::object capacity;
    if (capacity_stage) {
        const auto& r = rows[*capacity_stage];
        const double x = number(r, "achieved_rate").value_or(0);
        const double e2e_s = at(r, "e2e_ms", "mean").value_or(0) / 1000.0;
        const double inflight = x * e2e_s;
        const double users = x * (think_time_s + e2e_s);
        capacity["basis"] = slos.empty() ? "saturation knee" : "SLO knee";
        capacity["sustainable_rps"] = x;
        capacity["mean_e2e_s"] = e2e_s;
        capacity["mean_inflight"] = inflight;
        capacity["think_time_s"] = think_time_s;
        capacity["users"] = users;
        char text[512];
        std::snprintf(text, sizeof text,
                      "At the %s (%s %g) the server sustains %.2f req/s with %.1f requests in flight on average "
                      "(Little's law: %.2f req/s x %.2f s mean E2E). With %g s of think time between a user's "
                      "requests, that serves about %.0f concurrent users (N = X x (Z + R)).",
                      slos.empty() ? "saturation knee" : "SLO knee", closed_loop ? "concurrency" : "offered rate",
                      number(r, x_key).value_or(0), x, inflight, x, e2e_s, think_time_s, users);
        capacity["text"] = text;
    } else {
        capacity["text"] = "No stage qualifies: every stage failed an SLO or throughput never settled.";
    }
    // Failing requests are the server's (or the network's) errors, not its
    // capacity: say where they happened so nobody reads them as a knee.
    std::size_t error_stages = 0;
    const json::object* first_errors = nullptr;
    for (const auto& r : rows) {
        const auto* e = r.if_contains("too_many_errors");
        if (e && e->is_bool() && e->as_bool()) {
            if (error_stages++ == 0) first_errors = &r;
        }
    }
    if (first_errors) {
        const std::string where = (closed_loop ? "concurrency " : "") + fmt("%g", number(*first_errors, x_key).value_or(0)) +
                                  (closed_loop ? "" : " req/s");
        std::string text = "Requests failed beyond --max-error-rate at " + std::to_string(error_stages) + " of " +
                           std::to_string(rows.size()) + " stages, first at " + where + ": " +
                           error_breakdown(*first_errors) + ". These are errors, not saturation";
        text += capacity_stage ? "." : "; fix them before reading a knee.";
        capacity["errors"] = text;
        capacity["text"] = capacity_stage ? std::string(capacity["text"].as_string()) + " " + text : text;
    }

    json::array stages;
    for (auto& r : rows) stages.push_back(std::move(r));
    return json::object{{"stages", std::move(stages)}, {"knees", std::move(knees)}, {"capacity", std::move(capacity)}};
}

namespace {

// Sleeps between stages with SIGINT/SIGTERM held, so Ctrl-C then ends the
// sweep cleanly instead of killing it; true when one arrived.
bool cool_down(double seconds) {
    sigset_t set, old;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &old);
    const auto ns = static_cast<std::int64_t>(seconds * 1e9);
    const timespec timeout{static_cast<time_t>(ns / 1'000'000'000), static_cast<long>(ns % 1'000'000'000)};
    int got = -1;
    do {
        got = sigtimedwait(&set, nullptr, &timeout);
    } while (got < 0 && errno == EINTR);
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    if (got > 0) std::fprintf(stderr, "\nopenloop: interrupted between stages; the report covers the stages so far\n");
    return got > 0;
}

void write_text(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

}  // namespace

sweep_result run_sweep(const sweep_options& opt) {
    const bool closed = !opt.concurrency.empty();
    // The highest percentile any SLO judges (p99 when there are none) sets
    // how many samples a stage needs.
    double top_pct = 0;
    for (const auto& s : opt.slos) {
        if (s.stat.size() > 1 && s.stat[0] == 'p') top_pct = std::max(top_pct, std::stod(s.stat.substr(1)));
    }
    if (top_pct == 0) top_pct = 99.0;
    const std::uint64_t min_samples = opt.min_samples > 0 ? opt.min_samples : samples_for_percentile(top_pct);
    std::filesystem::path out(opt.out_dir);
    if (!opt.out_dir.empty()) std::filesystem::create_directories(out);

    sweep_result result;
    std::vector<json::object> rows;
    json::array slo_json;
    for (const auto& s : opt.slos)
        slo_json.push_back(json::object{{"text", s.text}, {"metric", s.metric}, {"stat", s.stat}, {"limit", s.limit}});

    double warmup = opt.warmup_s;
    double e2e_base_s = 0;  // E2E p50 at the first stage: the low-load latency
    auto publish = [&] {
        json::object report = analyse_sweep(rows, opt.slos, closed, opt.think_time_s, opt.follow_ratio);
        report["kind"] = "openloop-sweep";
        report["target"] = opt.base.target_label;
        report["mode"] = closed ? "closed-loop" : "open-loop";
        report["slos"] = slo_json;
        report["min_samples"] = min_samples;
        report["precision"] = opt.precision;
        report["interrupted"] = result.interrupted;
        report["config"] = opt.base.config;
        if (!opt.out_dir.empty()) {
            write_json_file((out / "sweep.json").string(), report);
            write_text(out / "sweep.md", sweep_markdown(report));
            write_text(out / "sweep.csv", sweep_csv(report));
        }
        result.report = std::move(report);
    };

    auto run_stage = [&](double rate, int concurrency) -> bool {
        const std::size_t index = result.stages.size();
        run_options o = opt.base;
        o.concurrency = concurrency;
        o.arrival.rate = closed ? 1.0 : rate;
        o.arrival.seed = opt.base.arrival.seed + index;  // one family: same workload, fresh arrivals
        o.arrival.profile.clear();
        o.warmup_requests = 0;
        o.warmup_s = warmup;
        // At least stage_s and at least min_samples measured requests.
        o.duration_s = opt.stage_s;
        o.num_requests = min_samples;
        o.all_bounds = true;
        if (closed) {
            o.duration_s = 0;
            o.num_requests = std::max<std::uint64_t>(min_samples, static_cast<std::uint64_t>(concurrency) * 4);
        }
        o.steady_throughput = true;
        o.drain_s = std::max(30.0, 4 * warmup);
        o.overload_inflight = opt.abort_inflight > 0
                                  ? opt.abort_inflight
                                  : static_cast<std::size_t>(std::max(64.0, 10 * (closed ? concurrency : rate) *
                                                                                std::max(1.0, e2e_base_s)));
        char dir[64];
        if (closed) {
            std::snprintf(dir, sizeof dir, "stage-%02zu-c%d", index, concurrency);
        } else {
            std::snprintf(dir, sizeof dir, "stage-%02zu-%gps", index, rate);
        }
        o.out_dir = opt.out_dir.empty() ? "" : (out / dir).string();
        o.config["sweep_stage"] = index;
        if (closed) {
            std::fprintf(stderr, "stage %zu: concurrency %d, %llu requests after %.0f s warm-up\n", index, concurrency,
                         static_cast<unsigned long long>(o.num_requests), warmup);
        } else {
            std::fprintf(stderr, "stage %zu: %.3g req/s, at least %.0f s and %llu requests, after %.0f s warm-up\n", index,
                         rate, o.duration_s, static_cast<unsigned long long>(o.num_requests), warmup);
        }
        const run_outcome outcome = run_load(o);
        bool good = false;
        json::object row = stage_row(index, rate, concurrency, outcome, opt.slos, opt.follow_ratio, good, e2e_base_s * 1000);
        row["dir"] = dir;
        row["warmup_s"] = warmup;
        std::fprintf(stderr, "  -> achieved %.3g req/s, TTFT p99 %s ms, E2E p99 %s ms, %llu errors: %s\n",
                     number(row, "achieved_rate").value_or(0), cell(at(row, "ttft_ms", "p99")).c_str(),
                     cell(at(row, "e2e_ms", "p99"), "%.0f").c_str(),
                     static_cast<unsigned long long>(outcome.result.stats.failed), row.at("verdict").as_string().c_str());
        if (index == 0) e2e_base_s = at(row, "e2e_ms", "p50").value_or(0) / 1000.0;
        // The next stage's warm-up should cover this stage's latency, so the
        // measured window starts in steady state.
        if (good) warmup = std::min(60.0, std::max(opt.warmup_s, 1.5 * at(row, "e2e_ms", "p90").value_or(0) / 1000.0));
        rows.push_back(row);
        result.stages.push_back({std::move(row), good});
        result.interrupted = outcome.interrupted;
        publish();
        if (!outcome.interrupted && opt.cooldown_s > 0 && cool_down(opt.cooldown_s)) result.interrupted = true;
        return good;
    };

    if (closed) {
        for (int c : opt.concurrency) {
            run_stage(0, c);
            if (result.interrupted) break;
        }
    } else if (opt.rates.automatic) {
        planner_options po;
        po.start_rate = opt.start_rate;
        po.factor = opt.factor;
        po.precision = opt.precision;
        po.max_rate = opt.max_rate;
        po.max_stages = opt.max_stages;
        rate_planner planner(po);
        while (auto r = planner.next_rate()) {
            planner.record(run_stage(*r, 0));
            if (result.interrupted) break;
        }
        std::fprintf(stderr, "automatic sweep: %s\n", planner.reason().c_str());
    } else {
        int saturated_in_a_row = 0;
        for (double r : opt.rates.rates) {
            run_stage(r, 0);
            if (result.interrupted) break;
            const auto& verdict = result.stages.back().row.at("verdict").as_string();
            saturated_in_a_row = (verdict == "saturated" || verdict == "overloaded") ? saturated_in_a_row + 1 : 0;
            if (saturated_in_a_row == 2 && r != opt.rates.rates.back()) {
                std::fprintf(stderr, "two stages in a row saturated: skipping the higher rates\n");
                break;
            }
        }
    }
    publish();
    return result;
}

}  // namespace openloop
