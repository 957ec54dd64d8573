#include "openloop/results/compare.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <random>
#include <stdexcept>

namespace openloop {

namespace json = boost::json;

namespace {

// ttfa last: a thinking model's time to first answer token (ttft's twin for any other model).
constexpr std::array<const char*, 4> latency_kinds = {"ttft", "tpot", "e2e", "ttfa"};
constexpr std::array<const char*, 4> latency_stats = {"mean", "p50", "p90", "p99"};
constexpr std::array<double, 3> latency_percentiles = {50, 90, 99};
constexpr std::size_t latency_metrics = latency_kinds.size() * latency_stats.size();
constexpr std::size_t error_rate_at = latency_metrics;  // then the two throughputs
constexpr double z99 = 2.5758;                          // two-sided 99 %
// A percentile is judged only with this many requests past it in each run:
// with fewer, the resamples only reshuffle a run's few largest values (the
// bootstrap fails for extremes), and two runs of one seeded schedule had their
// p99 of 40 requests called 13 % apart with a 99 % interval clear of zero.
constexpr double min_requests_past = 5;

std::int64_t pick(const request_sample& r, std::size_t kind) {
    return kind == 0 ? r.ttft : kind == 1 ? r.tpot : kind == 2 ? r.e2e : r.ttfa;
}

// The bootstrapped figures of one run (or one resample of it): latency
// statistics in ms and the error rate; NaN where there is no data.
struct figures {
    std::array<double, latency_metrics + 1> v{};
    std::array<std::size_t, latency_kinds.size()> samples{};  // per kind, the requests that had one
};

// Indices into requests when resampling; all of them, in order, when null.
figures figures_of(const std::vector<request_sample>& requests, const std::vector<std::uint32_t>* chosen,
                   std::vector<std::int64_t>& scratch) {
    figures f;
    const std::size_t n = chosen ? chosen->size() : requests.size();
    const auto at = [&](std::size_t i) -> const request_sample& { return requests[chosen ? (*chosen)[i] : i]; };
    for (std::size_t k = 0; k < latency_kinds.size(); ++k) {
        scratch.clear();
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i) {
            const request_sample& r = at(i);
            if (!r.ok) continue;
            const std::int64_t v = pick(r, k);
            if (v < 0) continue;
            scratch.push_back(v);
            sum += v == histogram::infinite ? HUGE_VAL : static_cast<double>(v);  // never answered: so is the mean
        }
        f.samples[k] = scratch.size();
        double* out = &f.v[k * latency_stats.size()];
        if (scratch.empty()) {
            std::fill(out, out + latency_stats.size(), std::nan(""));
            continue;
        }
        out[0] = sum / static_cast<double>(scratch.size()) / 1e6;
        // Nearest rank, as the run's histograms report it; each selection
        // starts where the one before left the smaller values.
        auto from = scratch.begin();
        for (std::size_t p = 0; p < latency_percentiles.size(); ++p) {
            const auto rank = static_cast<std::size_t>(std::ceil(latency_percentiles[p] / 100 * static_cast<double>(scratch.size())));
            const auto nth = scratch.begin() + static_cast<std::ptrdiff_t>(std::max<std::size_t>(rank, 1) - 1);
            std::nth_element(from, nth, scratch.end());
            out[p + 1] = ns_as_ms(*nth);
            from = nth;
        }
    }
    std::size_t failed = 0;
    for (std::size_t i = 0; i < n; ++i) failed += at(i).ok ? 0 : 1;
    f.v[error_rate_at] = n > 0 ? static_cast<double>(failed) / static_cast<double>(n) : std::nan("");
    return f;
}

// Significant: the interval clears min_change of the base (none of an infinite base: any answer is).
change_verdict judge(double low, double high, double min_change, double base, bool lower_is_better) {
    const double band = std::isinf(base) ? 0 : min_change * std::abs(base);
    if (low > band) return lower_is_better ? change_verdict::worse : change_verdict::better;
    if (high < -band) return lower_is_better ? change_verdict::better : change_verdict::worse;
    return change_verdict::within_noise;
}

// The value at quantile q of sorted values (nearest rank).
double quantile(const std::vector<double>& sorted, double q) {
    const auto rank = static_cast<std::size_t>(std::ceil(q * static_cast<double>(sorted.size())));
    return sorted[std::min(sorted.size() - 1, std::max<std::size_t>(rank, 1) - 1)];
}

struct run_counts {
    double completed = 0, output_tokens = 0;
};

run_counts counts_of(const compared_run& r) {
    run_counts c;
    for (const request_sample& s : r.requests) {
        if (!s.ok) continue;
        c.completed += 1;
        c.output_tokens += static_cast<double>(s.output_tokens);
    }
    return c;
}

// A rate from a count over a window, its change and the change's interval.
metric_change rate_change(std::string name, std::string unit, double base_amount, double base_count, double base_s,
                          double now_amount, double now_count, double now_s, double min_change) {
    metric_change m;
    m.name = std::move(name);
    m.unit = std::move(unit);
    m.lower_is_better = false;
    m.method = "poisson";
    if (base_s <= 0 || now_s <= 0 || base_count <= 0 || now_count <= 0) return m;
    m.base = base_amount / base_s;
    m.now = now_amount / now_s;
    const double se_base = m.base / std::sqrt(base_count), se_now = m.now / std::sqrt(now_count);
    const double half = z99 * std::sqrt(se_base * se_base + se_now * se_now);
    m.low = m.now - m.base - half;
    m.high = m.now - m.base + half;
    m.verdict = judge(m.low, m.high, min_change, m.base, false);
    return m;
}

std::string number(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string shown(const metric_change& m, double v) {
    if (std::isnan(v)) return "-";
    if (m.unit.empty()) return number(v * 100, 2) + " %";
    return number(v, m.unit == "ms" ? 3 : 2) + " " + m.unit;
}

std::string signed_text(const metric_change& m, double v) { return (v < 0 ? "-" : "+") + shown(m, std::abs(v)); }

std::string changes_table(const std::vector<metric_change>& changes) {
    std::string s = "| metric | base | new | change | relative | 99 % interval | verdict |\n"
                    "|---|---:|---:|---:|---:|---|---|\n";
    for (const metric_change& c : changes) {
        const bool data = c.verdict != change_verdict::no_data;
        s += "| " + c.name + " | " + shown(c, c.base) + " | " + shown(c, c.now) + " | " +
             (data ? signed_text(c, c.change()) : "-") + " | " +
             (data && c.base != 0 ? (c.relative() < 0 ? "" : "+") + number(c.relative() * 100, 1) + " %" : "-") + " | " +
             (data ? signed_text(c, c.low) + " .. " + signed_text(c, c.high) : "-") + " | " +
             std::string(change_verdict_name(c.verdict)) + " |\n";
    }
    return s;
}

json::object metrics_json(const std::vector<metric_change>& changes) {
    json::object metrics;
    for (const metric_change& c : changes) {
        json::object m{{"unit", c.unit.empty() ? "fraction" : c.unit},
                       {"lower_is_better", c.lower_is_better},
                       {"method", c.method},
                       {"verdict", change_verdict_name(c.verdict)}};
        const auto put = [&](const char* key, double v) { m[key] = std::isnan(v) ? json::value(nullptr) : ms_json(v); };
        put("base", c.base);
        put("new", c.now);
        if (c.verdict != change_verdict::no_data) {
            put("change", c.change());
            put("relative", c.relative());
            m["interval_99"] = json::array{ms_json(c.low), ms_json(c.high)};
        }
        metrics[c.name] = std::move(m);
    }
    return metrics;
}

}  // namespace

std::vector<std::string> compared_metric_names() {
    std::vector<std::string> names;
    for (const char* k : latency_kinds)
        for (const char* s : latency_stats) names.push_back(std::string(k) + "_" + s);
    names.insert(names.end(), {"error_rate", "request_throughput", "output_throughput"});
    return names;
}

std::vector<metric_change> compare_runs(const compared_run& base, const compared_run& now, const compare_options& options) {
    std::vector<std::int64_t> scratch;
    const figures fb = figures_of(base.requests, nullptr, scratch), fn = figures_of(now.requests, nullptr, scratch);
    std::array<std::vector<double>, latency_metrics + 1> diffs;
    if (!base.requests.empty() && !now.requests.empty()) {
        std::mt19937_64 rng(options.seed);
        std::vector<std::uint32_t> pb(base.requests.size()), pn(now.requests.size());
        std::uniform_int_distribution<std::uint32_t> db(0, static_cast<std::uint32_t>(pb.size() - 1));
        std::uniform_int_distribution<std::uint32_t> dn(0, static_cast<std::uint32_t>(pn.size() - 1));
        for (unsigned b = 0; b < options.resamples; ++b) {
            for (auto& i : pb) i = db(rng);
            for (auto& i : pn) i = dn(rng);
            const figures rb = figures_of(base.requests, &pb, scratch), rn = figures_of(now.requests, &pn, scratch);
            for (std::size_t m = 0; m < diffs.size(); ++m)
                if (!std::isnan(rb.v[m]) && !std::isnan(rn.v[m])) diffs[m].push_back(latency_change(rn.v[m], rb.v[m]));
        }
    }
    const std::vector<std::string> names = compared_metric_names();
    std::vector<metric_change> out;
    for (std::size_t m = 0; m < diffs.size(); ++m) {
        metric_change c;
        c.name = names[m];
        c.unit = m < latency_metrics ? "ms" : "";
        c.method = "bootstrap";
        c.base = fb.v[m];
        c.now = fn.v[m];
        // Resamples with too little data to compute a figure are left out; an
        // interval from fewer than half of them says nothing.
        if (!std::isnan(c.base) && !std::isnan(c.now) && diffs[m].size() * 2 >= options.resamples && !diffs[m].empty()) {
            std::sort(diffs[m].begin(), diffs[m].end());
            c.low = quantile(diffs[m], 0.005);
            c.high = quantile(diffs[m], 0.995);
            c.verdict = judge(c.low, c.high, options.min_change, c.base, true);
            if (const std::size_t stat = m % latency_stats.size(); m < latency_metrics && stat > 0) {
                const double past = 1 - latency_percentiles[stat - 1] / 100;
                const std::size_t kind = m / latency_stats.size();
                if (static_cast<double>(std::min(fb.samples[kind], fn.samples[kind])) * past < min_requests_past)
                    c.verdict = change_verdict::too_few;
            }
        }
        out.push_back(std::move(c));
    }
    const run_counts cb = counts_of(base), cn = counts_of(now);
    out.push_back(rate_change(names[latency_metrics + 1], "req/s", cb.completed, cb.completed, base.duration_s,
                              cn.completed, cn.completed, now.duration_s, options.min_change));
    out.push_back(rate_change(names[latency_metrics + 2], "tok/s", cb.output_tokens, cb.completed, base.duration_s,
                              cn.output_tokens, cn.completed, now.duration_s, options.min_change));
    return out;
}

std::vector<model_changes> compare_models(const compared_run& base, const compared_run& now, const compare_options& options) {
    const auto only = [](const compared_run& r, std::ptrdiff_t model) {
        compared_run one{r.name, {}, r.duration_s, {}, {}};
        std::copy_if(r.requests.begin(), r.requests.end(), std::back_inserter(one.requests),
                     [&](const request_sample& s) { return s.model == model; });
        return one;
    };
    std::vector<model_changes> out;
    for (std::size_t b = 0; b < base.models.size(); ++b)
        if (const auto n = std::find(now.models.begin(), now.models.end(), base.models[b]); n != now.models.end())
            out.push_back({base.models[b], compare_runs(only(base, static_cast<std::ptrdiff_t>(b)),
                                                        only(now, n - now.models.begin()), options)});
    return out;
}

gate parse_gate(std::string_view text, const std::vector<std::string>& names) {
    gate g;
    g.text = std::string(text);
    const std::size_t op = text.find_first_of("<>");
    const auto bad = [&](const std::string& why) {
        std::string known;
        for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
        return std::invalid_argument("--fail-on '" + g.text + "': " + why + " (metrics: " + known + ")");
    };
    if (op == std::string_view::npos || op == 0)
        throw bad("write METRIC>+PERCENT% or METRIC<-PERCENT%, e.g. ttft_p99>+10%");
    g.metric = std::string(text.substr(0, op));
    if (const auto tag = g.metric.find("{model="); tag != std::string::npos) {
        if (g.metric.back() != '}' || g.metric.size() - tag < 9) throw bad("write a model's gate as METRIC{model=NAME}>+P%");
        g.model = g.metric.substr(tag + 7, g.metric.size() - tag - 8);
        g.metric.erase(tag);
    }
    if (std::find(names.begin(), names.end(), g.metric) == names.end()) throw bad("no metric '" + g.metric + "'");
    g.above = text[op] == '>';
    std::string_view pct = text.substr(op + 1);
    if (pct.size() < 2 || pct.back() != '%') throw bad("the threshold is a signed percentage ending in %, e.g. +10%");
    pct.remove_suffix(1);
    std::size_t used = 0;
    try {
        g.percent = std::stod(std::string(pct), &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != pct.size() || !std::isfinite(g.percent)) throw bad("'" + std::string(pct) + "' is not a number");
    return g;
}

// The changes a gate judges: the totals', or its model's (null: no such model in both runs).
static const std::vector<metric_change>* gated(const gate& g, const std::vector<metric_change>& changes,
                                        const std::vector<model_changes>& models) {
    if (g.model.empty()) return &changes;
    for (const model_changes& m : models)
        if (m.model == g.model) return &m.changes;
    return nullptr;
}

std::optional<std::string> gate_failure(const gate& g, const std::vector<metric_change>& all,
                                        const std::vector<model_changes>& models) {
    const std::vector<metric_change>* judged = gated(g, all, models);
    if (judged == nullptr) return g.text + ": no model '" + g.model + "' in both runs (mixed runs that both name it)";
    for (const metric_change& c : *judged) {
        if (c.name != g.metric) continue;
        if (!c.significant()) return std::nullopt;
        const double pct = c.relative() * 100;
        const bool fails = g.above ? pct > g.percent : pct < g.percent;
        if (!fails) return std::nullopt;
        return g.text + ": " + c.name + " changed " + (pct < 0 ? "" : "+") + number(pct, 1) + " % (" + shown(c, c.base) +
               " -> " + shown(c, c.now) + "), beyond 99 % noise";
    }
    return std::nullopt;
}

std::optional<std::string> gate_unjudged(const gate& g, const std::vector<metric_change>& all,
                                         const std::vector<model_changes>& models) {
    const std::vector<metric_change>* judged = gated(g, all, models);  // none: gate_failure says so
    for (const metric_change& c : judged ? *judged : std::vector<metric_change>{}) {
        if (c.name != g.metric || c.verdict != change_verdict::too_few) continue;
        const std::string p = c.name.substr(c.name.rfind('_') + 2);
        return "gate " + g.text + " not judged: " + c.name + " needs at least " +
               std::to_string(static_cast<int>(std::lround(min_requests_past / (1 - std::stod(p) / 100)))) +
               " requests in each run (" + number(min_requests_past, 0) + " past p" + p + ")";
    }
    return std::nullopt;
}

std::string_view change_verdict_name(change_verdict v) {
    switch (v) {
    case change_verdict::better: return "better";
    case change_verdict::worse: return "worse";
    case change_verdict::within_noise: return "within noise";
    case change_verdict::no_data: return "no data";
    case change_verdict::too_few: return "too few requests";
    }
    return "no data";
}

run_match match_runs(const compared_run& base, const compared_run& now) {
    run_match m;
    const auto described = [](const compared_run& r) { return r.context && !r.context->config.empty(); };
    if (!described(base) || !described(now)) {
        m.unchecked = (described(base) ? now.name : base.name) + " has no run.json";
        return m;
    }
    m.differences = run_differences(*base.context, *now.context);
    return m;
}

std::string run_match_markdown(const run_match& m, bool allow_mismatch) {
    if (!m.checked()) return "Workloads not checked: " + m.unchecked + ".\n\n";
    if (m.differences.empty()) return "";
    std::string s = m.workloads_differ()
                        ? std::string("**The workloads differ**: the verdicts below weigh different loads, not the servers "
                                      "alone; ") +
                              (allow_mismatch ? "gates judged anyway (--allow-mismatch)." : "gates are refused.")
                        : std::string("The servers under test differ; the workload is the same.");
    s += "\n\n";
    for (const run_difference& d : m.differences)
        s += "- " + d.aspect + (d.field != d.aspect ? " (" + d.field + ")" : std::string()) + ": `" + d.first +
             "` vs `" + d.second + "`" + (d.workload ? "" : ", the server under test") + "\n";
    return s + "\n";
}

void add_run_match_json(json::object& out, const run_match& m, bool allow_mismatch) {
    out["workloads_checked"] = m.checked();
    out["workloads_differ"] = m.workloads_differ();
    out["differences"] = differences_json(m.differences);
    out["allow_mismatch"] = allow_mismatch;
}

std::string compare_markdown(const compared_run& base, const compared_run& now, const std::vector<metric_change>& changes,
                             const compare_options& options) {
    std::string s = "# openloop compare\n\n" + run_match_markdown(match_runs(base, now), options.allow_mismatch) + "Base `" + base.name + "` (" +
                    std::to_string(base.requests.size()) +
                    " requests), new `" + now.name + "` (" + std::to_string(now.requests.size()) +
                    " requests). Intervals are 99 % intervals of new - base: latency and error rate by bootstrap over "
                    "requests.jsonl (" + std::to_string(options.resamples) +
                    " resamples), throughput from the completion counts (Poisson); a change is significant when its interval "
                    "clears ±" + number(options.min_change * 100, 1) + " % of base.\n\n" + changes_table(changes);
    for (const model_changes& m : compare_models(base, now, options))
        s += "\n## Model `" + m.model + "`\n\n" + changes_table(m.changes);
    return s;
}

json::object compare_json(const compared_run& base, const compared_run& now, const std::vector<metric_change>& changes,
                          const compare_options& options) {
    json::object out{{"base", base.name},
                     {"new", now.name},
                     {"base_requests", base.requests.size()},
                     {"new_requests", now.requests.size()},
                     {"resamples", options.resamples},
                     {"confidence", 0.99},
                     {"min_change", options.min_change}};
    add_run_match_json(out, match_runs(base, now), options.allow_mismatch);
    out["metrics"] = metrics_json(changes);
    if (const std::vector<model_changes> models = compare_models(base, now, options); !models.empty()) {
        json::object& by_model = out["by_model"].emplace_object();
        for (const model_changes& m : models) by_model[m.model] = metrics_json(m.changes);
    }
    return out;
}

}  // namespace openloop
