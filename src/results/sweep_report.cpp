#include "openloop/results/sweep_report.hpp"

#include "openloop/results/number_text.hpp"

#include <algorithm>
#include <cstdio>

namespace openloop {

namespace {

// Every SLO held with confidence, only at the point estimate, or not; a
// stage that failed otherwise (throughput, abort, errors) fails.
slo_status judge_stage(const stage_row& r, const std::vector<slo>& slos) {
    // slo_pass: also each model's of a mixed run (sweep_row).
    bool ok = !r.saturated && !r.aborted && !r.too_many_errors && r.slo_pass;
    for (const auto& o : slos) {
        ok = ok && check_slo(o, [&](std::string_view) { return r.observed(o); }).pass;
    }
    if (!ok) return slo_status::fail;
    // With confidence: a p99 SLO holds only when its CI's upper end is under the limit.
    slo_status worst = slo_status::pass;
    for (const auto& o : slos) {
        if (o.metric == "error_rate") continue;
        const auto point = r.observed(o);
        std::optional<double> upper;
        if (const latency_row* family = r.latency(o.metric); family != nullptr) {
            const auto& ci = o.stat == "p99" ? family->p99_ci : o.stat == "p95" ? family->p95_ci : std::nullopt;
            if (ci) upper = (*ci)[1];
        }
        if (point) worst = std::min(worst, classify_slo(*point, upper, o.limit));
    }
    return worst;
}

std::string stage_name(const stage_row& r) { return fmt("%g", r.x()) + " req/s (stage " + std::to_string(r.run) + ")"; }

// The saturation knee from the stages' own verdicts, the rule each stage was
// judged by online: the stage below the lowest saturated one.
knee saturation_knee(const std::vector<stage_row>& rows) {
    knee k;
    k.method = "queue_growth";
    const auto bad = std::find_if(rows.begin(), rows.end(), [](const stage_row& r) { return r.saturated || r.aborted; });
    if (rows.empty()) {
        k.explanation = "no stages";
    } else if (bad == rows.end()) {
        k.explanation = "saturation not reached up to " + fmt("%g", rows.back().x()) + " req/s; at the highest stage " +
                        rows.back().saturation_evidence();
    } else if (bad == rows.begin()) {
        k.below_range = true;
        k.explanation = "already saturated at the lowest stage, " + stage_name(*bad) + ": " +
                        bad->saturation_evidence() + "; the knee lies below the rates swept";
    } else {
        const auto i = static_cast<std::size_t>(bad - rows.begin());
        const stage_row& good = rows[i - 1];
        k.found = true;
        k.stage = i - 1;
        k.break_stage = i;
        k.rate = good.x();
        k.interpolated_rate = good.x();
        k.explanation = "saturation knee at " + stage_name(good) + ", " + good.saturation_evidence() + "; above it " +
                        stage_name(*bad) + " " + bad->saturation_evidence();
    }
    return k;
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

sweep_analysis analyse_sweep(std::vector<stage_row> rows, const std::vector<slo>& slos, bool closed_loop,
                             double think_time_s) {
    // Stages are numbered in rate order (a bisection runs them out of order);
    // `run` keeps the order they ran in, `dir` where their results are.
    std::sort(rows.begin(), rows.end(), [](const stage_row& a, const stage_row& b) { return a.x() < b.x(); });
    std::vector<double> xs;
    std::vector<slo_status> status;
    std::vector<stage_point> curve;
    for (std::size_t i = 0; i < rows.size(); ++i) {
        stage_row& r = rows[i];
        r.index = i;
        xs.push_back(r.x());
        status.push_back(judge_stage(r, slos));
        // Achieved scaled by nominal/sent, so the knee test sees achieved/sent.
        curve.push_back({r.x(), closed_loop ? r.achieved_rate : r.x() * r.follow_ratio.value_or(1.0),
                         r.ttft.p50.value_or(0), r.run});
    }

    sweep_analysis a;
    std::optional<std::size_t> capacity_stage;
    if (!slos.empty() && !rows.empty()) {
        a.knees.slo = find_confident_slo_knee(xs, status);
        if (a.knees.slo->point.found) capacity_stage = a.knees.slo->point.stage;
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
        a.knees.saturation = plateau;
    } else {
        // Saturation is where the queue grows (each stage's verdict); the
        // latency bend (Kneedle on TTFT p50) is reported under its own name.
        a.knees.saturation = saturation_knee(rows);
        a.knees.latency = kneedle_knee(curve);
    }
    if (!capacity_stage && a.knees.saturation.found) capacity_stage = a.knees.saturation.stage;

    capacity_report& cap = a.capacity;
    if (capacity_stage) {
        const stage_row& r = rows[*capacity_stage];
        cap.stage = capacity_stage;
        cap.basis = slos.empty() ? "saturation knee" : "SLO knee";
        cap.sustainable_rps = r.achieved_rate;
        cap.mean_e2e_s = r.e2e.mean.value_or(0) / 1000.0;
        cap.mean_inflight = cap.sustainable_rps * cap.mean_e2e_s;
        cap.think_time_s = think_time_s;
        cap.users = cap.sustainable_rps * (think_time_s + cap.mean_e2e_s);
        char text[512];
        std::snprintf(text, sizeof text,
                      "At the %s (%s %g) the server sustains %.2f req/s with %.1f requests in flight on average "
                      "(Little's law: %.2f req/s x %.2f s mean E2E). With %g s of think time between a user's "
                      "requests, that serves about %.0f concurrent users (N = X x (Z + R)).",
                      cap.basis.c_str(), closed_loop ? "concurrency" : "offered rate", r.x(), cap.sustainable_rps,
                      cap.mean_inflight, cap.sustainable_rps, cap.mean_e2e_s, think_time_s, cap.users);
        cap.text = text;
    } else {
        cap.text = !closed_loop && !rows.empty() && !a.knees.saturation.found && !a.knees.saturation.below_range
                       ? "Saturation not reached up to " + fmt("%g", rows.back().x()) +
                             " req/s: no capacity figure beyond the highest rate swept."
                       : "No stage qualifies: every stage failed an SLO or saturated.";
    }
    // Failing requests are the server's (or the network's) errors, not its
    // capacity: say where they happened so nobody reads them as a knee.
    const auto error_stages = std::count_if(rows.begin(), rows.end(), [](const stage_row& r) { return r.too_many_errors; });
    const auto first_errors = std::find_if(rows.begin(), rows.end(), [](const stage_row& r) { return r.too_many_errors; });
    if (first_errors != rows.end()) {
        const std::string where = (closed_loop ? "concurrency " : "") + fmt("%g", first_errors->x()) +
                                  (closed_loop ? "" : " req/s");
        cap.errors = "Requests failed beyond --max-error-rate at " + std::to_string(error_stages) + " of " +
                     std::to_string(rows.size()) + " stages, first at " + where + ": " + error_breakdown(*first_errors) +
                     ". These are errors, not saturation";
        cap.errors += capacity_stage ? "." : "; fix them before reading a knee.";
        cap.text = capacity_stage ? cap.text + " " + cap.errors : cap.errors;
    }
    a.stages = std::move(rows);
    return a;
}

namespace {

std::string stages_text(std::size_t n) { return std::to_string(n) + (n == 1 ? " stage" : " stages"); }

std::string cut_where(const stage_row& cut) {
    return "stage " + std::to_string(cut.run) + " (" +
           (cut.concurrency ? "concurrency " + fmt("%g", cut.x()) : fmt("%g", cut.x()) + " req/s") + ")";
}

}  // namespace

void note_interrupted(sweep_analysis& a, const std::optional<stage_row>& cut) {
    if (a.knees.saturation.found || a.knees.saturation.below_range) return;
    std::string judged = a.stages.empty() ? std::string("no stage was judged")
                                          : "no knee in the " + stages_text(a.stages.size()) + " judged, up to " +
                                                fmt("%g", a.stages.back().x()) +
                                                (a.stages.back().concurrency ? "" : " req/s");
    const std::string where = cut ? "cut in " + cut_where(*cut) : std::string("interrupted between stages");
    a.knees.saturation.explanation = "not known: the sweep was " + where + "; " + judged;
    if (!a.capacity.stage)
        a.capacity.text = "The sweep was " + where + " before a knee: no capacity figure." +
                          (a.capacity.errors.empty() ? "" : " " + a.capacity.errors);
}

std::string interruption_text(const sweep_report& r) {
    if (!r.interrupted) return "";
    std::string s = "Interrupted (Ctrl-C or SIGTERM) ";
    if (r.cut) {
        s += "during " + cut_where(*r.cut) + ": that stage is cut, not judged (its results so far are in " +
             (r.cut->dir.empty() ? std::string("its stage directory") : r.cut->dir) + ")";
    } else {
        s += "between stages";
    }
    return s + "; the knees are judged on the " + stages_text(r.analysis.stages.size()) + " before it.";
}

}  // namespace openloop
