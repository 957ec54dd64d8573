#include "openloop/results/sweep_row.hpp"

#include "openloop/results/knee.hpp"
#include "openloop/results/model_report.hpp"
#include "openloop/results/number_text.hpp"
#include "openloop/results/slo_observe.hpp"

#include <algorithm>
#include <cmath>

namespace openloop {

std::optional<double> latency_row::at(std::string_view stat) const {
    if (stat == "mean") return mean;
    if (stat == "p50") return p50;
    if (stat == "p90") return p90;
    if (stat == "p95") return p95;
    if (stat == "p99") return p99;
    if (stat == "p99.9") return p99_9;
    if (stat == "max") return max;
    return std::nullopt;
}

latency_row make_latency_row(const histogram& h) {
    latency_row l;
    l.mean = latency_ms(h, "mean");
    l.p50 = latency_ms(h, "p50");
    l.p90 = latency_ms(h, "p90");
    l.p95 = latency_ms(h, "p95");
    l.p99 = latency_ms(h, "p99");
    l.p99_9 = latency_ms(h, "p99.9");
    l.max = latency_ms(h, "max");
    for (const auto& [pct, out] : {std::pair{95.0, &l.p95_ci}, std::pair{99.0, &l.p99_ci}}) {
        const auto ranks = percentile_ci(h.count(), pct);
        if (!ranks.sufficient) continue;
        const auto ci = ci_values(ranks, h.count(), [&](double p) { return ns_as_ms(h.percentile(p)); });
        *out = std::array<double, 2>{ci.lo, ci.hi};
    }
    return l;
}

const latency_row* stage_row::latency(std::string_view metric) const {
    for (const auto& [name, family] : {std::pair<std::string_view, const latency_row*>{"ttft", &ttft},
                                       {"tpot", &tpot},
                                       {"itl", &itl},
                                       {"icl", &icl},
                                       {"e2e", &e2e},
                                       {"lag", &lag},
                                       {"ttfa", &ttfa}}) {
        if (metric == name) return family;
    }
    return nullptr;
}

std::optional<double> stage_row::observed(const slo& s) const {
    if (s.metric == "error_rate") return error_rate;
    const latency_row* family = latency(s.metric);
    return family != nullptr ? family->at(s.stat) : std::nullopt;
}

namespace {

// The in-flight samples of the second half of the measured send window;
// none without a series. Near capacity a stable queue takes longer than the
// warm-up to fill to its stationary level: that rise is over by the second
// half, while a saturated queue keeps growing through it.
std::vector<double> send_window_inflight(const run_stats& st) {
    std::vector<double> out;
    if (st.inflight_step_ns <= 0 || st.started < 2) return out;
    const std::int64_t from = st.first_intended_ns;
    const std::int64_t to = from + static_cast<std::int64_t>(st.steady_window_s * 1e9);
    for (std::size_t i = 0; i < st.inflight_samples.size(); ++i) {
        const std::int64_t t = st.inflight_origin_ns + static_cast<std::int64_t>(i) * st.inflight_step_ns;
        if (t >= from && t <= to) out.push_back(st.inflight_samples[i]);
    }
    return out;
}

}  // namespace

std::string stage_row::saturation_evidence() const {
    const std::string ratio = follow_ratio ? ", answered " + fmt("%.2f", *follow_ratio) + " of sent" : std::string();
    if (aborted) return "overloaded: in flight passed the abort bound" + ratio;
    const std::string open = undecided ? "; undecided at the longest stage window" : "";
    if (queue.judged) return (saturated ? "saturated: " : "not saturated: ") + queue.evidence + ratio + open;
    return (saturated ? "saturated: " : "not saturated: ") + std::string("no in-flight trend") + ratio;
}

stage_row make_stage_row(std::size_t index, double offered_rate, int concurrency, const run_result& result,
                         bool overloaded, const std::vector<slo>& slos, double follow_ratio, double base_e2e_ms) {
    const run_stats& st = result.stats;
    stage_row row;
    row.index = index;
    row.run = index;
    if (concurrency > 0) {
        row.concurrency = concurrency;
    } else {
        row.offered_rate = offered_rate;
    }
    // Steady-state throughput (completions inside the send window) is what a
    // knee compares with the offered rate; the run's own figure includes the drain.
    const double achieved = st.steady_window_s > 0 ? st.steady_rate() : result.request_throughput;
    row.achieved_rate = achieved;
    // Poisson arrivals make the realised rate differ from the nominal one by
    // ~1/sqrt(n); comparing completions with the arrivals actually sent keeps
    // that noise out of the achieved/offered ratio.
    const double sent_rate = st.steady_window_s > 0 && st.started > 1
                                 ? static_cast<double>(st.started - 1) / st.steady_window_s
                                 : offered_rate;
    row.sent_rate = sent_rate;
    // Failed requests were answered, not left queueing: they count towards
    // following the offered load, so that failures read as errors and not as
    // saturation. The error rate has a verdict of its own. Requests openloop
    // itself cancelled (the drain after the last send ran out, or the stage
    // was aborted) were not answered: that is queueing, so count_errors'
    // failures (which leave them out) are the answered ones.
    const double failed_share =
        st.started > 0 ? static_cast<double>(result.errors.failed) / static_cast<double>(st.started) : 0.0;
    const double answered = achieved + failed_share * sent_rate;
    if (sent_rate > 0) row.follow_ratio = answered / sent_rate;
    row.request_throughput = result.request_throughput;
    row.output_throughput = result.output_throughput;
    row.completed = st.completed;
    row.failed = st.failed;
    row.error_rate = result.errors.rate;
    for (int c = 0; c < error_class_count; ++c) {
        if (const auto n = st.failed_by_class[static_cast<std::size_t>(c)]; n > 0) {
            row.errors.emplace_back(error_class_name(static_cast<error_class>(c)), n);
        }
    }
    row.too_many_errors = result.validity.too_many_errors;
    // Over the same window and requests as achieved: the run's own goodput
    // divides by its whole duration, drain included, and could exceed it.
    row.goodput = st.completed > 0 ? achieved * static_cast<double>(st.good) / static_cast<double>(st.completed) : 0;
    row.ttft = make_latency_row(st.ttft);
    row.tpot = make_latency_row(st.tpot);
    row.itl = make_latency_row(st.itl);
    row.icl = make_latency_row(st.icl);
    row.e2e = make_latency_row(st.e2e);
    row.lag = make_latency_row(st.lag);
    row.ttfa = make_latency_row(st.ttfa);
    if (row.e2e.mean) row.mean_inflight = achieved * *row.e2e.mean / 1000.0;
    row.samples = st.completed;
    row.duration_s = st.duration_s();

    for (const auto& o : slos) {
        const auto c = check_slo(o, result);
        row.slo_pass = row.slo_pass && c.pass;
        row.slo_results.push_back({o.text, c.observed, c.pass});
    }
    // A mixed run's every model is held to each SLO it keeps a figure of (not lag, ICL or
    // thinking time: the run's alone): the stage fails its SLOs when one model misses.
    for (const auto& o : slos) {
        if (o.metric == "lag" || o.metric == "icl" || o.metric == "reasoning") continue;
        for (const model_stats& m : st.by_model) {
            const auto v = model_value(result, m, o.metric == "error_rate" ? o.metric : o.metric + "_" + o.stat);
            const auto c = check_slo(o, [&](std::string_view) { return v; });
            row.slo_pass = row.slo_pass && c.pass;
            row.slo_results.push_back({o.text + "{model=" + m.name + "}", c.observed, c.pass});
        }
    }
    // A shortfall also has to stand out from noise: below capacity the
    // arrivals-minus-completions of a send window is the change in the in-flight
    // count, whose variance is about twice its mean L = rate x mean E2E.
    const double send_window_s = st.steady_window_s;
    row.deficit = (sent_rate - answered) * send_window_s;
    // Below capacity the latency stays near its low-load value; a stage whose
    // own E2E has run away (a backlog) must not widen its own allowance.
    const double held_e2e_s = queue_correlation_s(row.e2e.mean.value_or(0) / 1000.0, base_e2e_ms / 1000.0);
    const double in_flight = sent_rate * held_e2e_s;
    // Past a 10 % shortfall no noise explains it.
    row.follows = concurrency > 0 || sent_rate <= 0 || answered / sent_rate >= follow_ratio ||
                  (row.deficit <= 3 * std::sqrt(2 * std::max(1.0, in_flight)) && answered / sent_rate >= 0.9);
    if (concurrency == 0 && st.inflight_step_ns > 0) {
        // The same held E2E is the series' correlation time (queue_correlation_s).
        queue_trend_options qo;
        qo.rate = sent_rate;
        row.queue = judge_queue(send_window_inflight(st), static_cast<double>(st.inflight_step_ns) / 1e9, held_e2e_s, qo);
    }
    row.saturated = row.queue.judged ? row.queue.growing : !row.follows;
    row.aborted = overloaded;
    // The verdict is the server's; a generator that fell behind its schedule
    // is flagged beside it (its latencies still count from the intended times).
    row.valid = result.validity.valid;
    row.generator_ok = result.validity.generator_ok;
    row.verdict = "good";
    if (overloaded) {
        row.verdict = "overloaded";
    } else if (row.saturated) {
        row.verdict = "saturated";
    } else if (row.too_many_errors) {
        row.verdict = "errors";
    } else if (!row.slo_pass) {
        row.verdict = "slo_fail";
    }
    return row;
}

std::string cell(std::optional<double> v, const char* format) { return v ? fmt(format, *v) : "-"; }

std::string error_breakdown(const stage_row& row) {
    std::string out = fmt("%.1f", row.error_rate * 100) + " %";
    if (row.errors.empty()) return out;
    std::string classes;
    for (const auto& [name, n] : row.errors) {
        if (!classes.empty()) classes += ", ";
        classes += std::to_string(n) + " " + name;
    }
    return out + " (" + classes + ")";
}

}  // namespace openloop
