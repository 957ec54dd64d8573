#include "openloop/results/sweep_json.hpp"

#include "openloop/base/json_text.hpp"

#include <stdexcept>
#include <string>

namespace openloop {

namespace json = boost::json;

namespace {

// A figure or null; a latency past a request that never answered is "inf".
json::value opt(const std::optional<double>& v) { return v ? ms_json(*v) : json::value(nullptr); }

json::object latency_json(const latency_row& l) {
    json::object o;
    o["mean"] = opt(l.mean);
    o["p50"] = opt(l.p50);
    o["p90"] = opt(l.p90);
    o["p95"] = opt(l.p95);
    o["p99"] = opt(l.p99);
    o["p99.9"] = opt(l.p99_9);
    o["max"] = opt(l.max);
    for (const auto& [key, ci] : {std::pair{"p95_ci", &l.p95_ci}, std::pair{"p99_ci", &l.p99_ci}})
        o[key] = *ci ? json::value(json::array{ms_json((**ci)[0]), ms_json((**ci)[1])}) : json::value(nullptr);
    return o;
}

json::object knee_json(const knee& k) {
    return json::object{{"found", k.found},     {"rate", k.rate},   {"interpolated_rate", k.interpolated_rate},
                        {"stage", k.stage},     {"method", k.method}, {"explanation", k.explanation},
                        {"below_range", k.below_range}};
}

json::object slo_knee_json(const std::optional<confident_slo_knee>& k) {
    if (!k) return json::object{{"found", false}, {"rate", 0}, {"explanation", "no --slo given"}};
    return json::object{{"found", k->point.found},
                        {"rate", k->point.rate},
                        {"stage", k->point.found ? json::value(k->point.stage) : json::value(nullptr)},
                        {"explanation", k->point.explanation},
                        {"warning", k->point.warning},
                        {"confident_found", k->confident.found},
                        {"confident_rate", k->confident.rate}};
}

json::object capacity_json(const capacity_report& c) {
    json::object o;
    if (c.stage) {
        o["basis"] = c.basis;
        o["sustainable_rps"] = c.sustainable_rps;
        o["mean_e2e_s"] = c.mean_e2e_s;
        o["mean_inflight"] = c.mean_inflight;
        o["think_time_s"] = c.think_time_s;
        o["users"] = c.users;
    }
    o["text"] = c.text;
    if (!c.errors.empty()) o["errors"] = c.errors;
    return o;
}

// Reading a stored row: each accessor names the key it could not read.
struct reader {
    const json::object& o;

    const json::value& at(std::string_view key) const {
        const auto* v = o.if_contains(key);
        if (!v) throw std::invalid_argument("sweep stage row: missing \"" + std::string(key) + "\"");
        return *v;
    }
    [[noreturn]] void bad(std::string_view key, const char* what) const {
        throw std::invalid_argument("sweep stage row: \"" + std::string(key) + "\" is not " + what);
    }
    double number(std::string_view key) const {
        const auto& v = at(key);
        if (!v.is_number()) bad(key, "a number");
        return v.to_number<double>();
    }
    std::optional<double> maybe(std::string_view key) const {
        const auto& v = at(key);
        if (v.is_null()) return std::nullopt;
        const std::optional<double> ms = ms_from_json(v);
        if (!ms) bad(key, "a number, \"inf\" or null");
        return ms;
    }
    std::uint64_t count(std::string_view key) const {
        const auto& v = at(key);
        if (!v.is_number()) bad(key, "a count");
        return v.to_number<std::uint64_t>();
    }
    bool flag(std::string_view key) const {
        const auto& v = at(key);
        if (!v.is_bool()) bad(key, "true or false");
        return v.get_bool();
    }
    std::string text(std::string_view key) const {
        const auto& v = at(key);
        if (!v.is_string()) bad(key, "a string");
        return std::string(v.get_string());
    }
    const json::object& object(std::string_view key) const {
        const auto& v = at(key);
        if (!v.is_object()) bad(key, "an object");
        return v.get_object();
    }
    const json::array& array(std::string_view key) const {
        const auto& v = at(key);
        if (!v.is_array()) bad(key, "an array");
        return v.get_array();
    }
};

latency_row latency_from_json(const json::object& o) {
    const reader r{o};
    latency_row l;
    l.mean = r.maybe("mean");
    l.p50 = r.maybe("p50");
    l.p90 = r.maybe("p90");
    l.p95 = r.maybe("p95");
    l.p99 = r.maybe("p99");
    l.p99_9 = r.maybe("p99.9");
    l.max = r.maybe("max");
    for (const auto& [key, ci] : {std::pair{"p95_ci", &l.p95_ci}, std::pair{"p99_ci", &l.p99_ci}}) {
        if (r.at(key).is_null()) continue;
        const auto& a = r.array(key);
        const std::optional<double> lo = a.size() == 2 ? ms_from_json(a[0]) : std::nullopt;
        const std::optional<double> hi = a.size() == 2 ? ms_from_json(a[1]) : std::nullopt;
        if (!lo || !hi) r.bad(key, "a pair of numbers");
        *ci = std::array<double, 2>{*lo, *hi};
    }
    return l;
}

}  // namespace

json::object to_json(const stage_row& row) {
    json::object o;
    o["index"] = row.index;
    o["offered_rate"] = opt(row.offered_rate);
    o["concurrency"] = row.concurrency ? json::value(*row.concurrency) : json::value(nullptr);
    o["achieved_rate"] = row.achieved_rate;
    o["sent_rate"] = row.sent_rate;
    o["follow_ratio"] = opt(row.follow_ratio);
    o["request_throughput"] = row.request_throughput;
    o["output_throughput"] = row.output_throughput;
    o["completed"] = row.completed;
    o["failed"] = row.failed;
    o["error_rate"] = row.error_rate;
    json::object errors;
    for (const auto& [name, n] : row.errors) errors[name] = n;
    o["errors"] = std::move(errors);
    o["too_many_errors"] = row.too_many_errors;
    o["goodput"] = row.goodput;
    o["mean_inflight"] = opt(row.mean_inflight);
    o["samples"] = row.samples;
    o["duration_s"] = row.duration_s;
    o["ttft_ms"] = latency_json(row.ttft);
    o["tpot_ms"] = latency_json(row.tpot);
    o["itl_ms"] = latency_json(row.itl);
    o["icl_ms"] = latency_json(row.icl);
    o["e2e_ms"] = latency_json(row.e2e);
    o["lag_ms"] = latency_json(row.lag);
    o["ttfa_ms"] = latency_json(row.ttfa);
    o["lag_p99_ms"] = opt(row.lag.p99);
    o["slo_pass"] = row.slo_pass;
    json::array checks;
    for (const auto& c : row.slo_results)
        checks.push_back(json::object{{"slo", c.slo}, {"observed", opt(c.observed)}, {"pass", c.pass}});
    o["slo_results"] = std::move(checks);
    o["deficit"] = row.deficit;
    o["follows"] = row.follows;
    o["queue"] = json::object{{"judged", row.queue.judged}, {"growing", row.queue.growing},
                              {"batches", row.queue.batches}, {"window_s", row.queue.window_s},
                              {"mean", row.queue.mean},     {"first", row.queue.first},
                              {"last", row.queue.last},     {"growth", row.queue.growth},
                              {"p", row.queue.p},           {"growth_sd", row.queue.growth_sd},
                              {"overload_excluded", row.queue.overload_excluded},
                              {"evidence", row.queue.evidence}};
    o["undecided"] = row.undecided;
    o["saturated"] = row.saturated;
    o["saturation_evidence"] = row.saturation_evidence();
    o["aborted"] = row.aborted;
    o["valid"] = row.valid;
    o["generator_ok"] = row.generator_ok;
    o["verdict"] = row.verdict;
    o["dir"] = row.dir;
    o["warmup_s"] = row.warmup_s;
    o["run"] = row.run;
    return o;
}

stage_row stage_row_from_json(const json::object& o) {
    const reader r{o};
    stage_row row;
    row.index = r.count("index");
    row.run = r.count("run");
    row.dir = r.text("dir");
    row.warmup_s = r.number("warmup_s");
    row.offered_rate = r.maybe("offered_rate");
    if (const auto c = r.maybe("concurrency")) row.concurrency = static_cast<int>(*c);
    row.achieved_rate = r.number("achieved_rate");
    row.sent_rate = r.number("sent_rate");
    row.follow_ratio = r.maybe("follow_ratio");
    row.request_throughput = r.number("request_throughput");
    row.output_throughput = r.number("output_throughput");
    row.completed = r.count("completed");
    row.failed = r.count("failed");
    row.error_rate = r.number("error_rate");
    for (const auto& [name, n] : r.object("errors")) {
        if (!n.is_number()) r.bad("errors", "an object of counts");
        row.errors.emplace_back(std::string(name), n.to_number<std::uint64_t>());
    }
    row.too_many_errors = r.flag("too_many_errors");
    row.goodput = r.number("goodput");
    row.mean_inflight = r.maybe("mean_inflight");
    row.samples = r.count("samples");
    row.duration_s = r.number("duration_s");
    row.ttft = latency_from_json(r.object("ttft_ms"));
    row.tpot = latency_from_json(r.object("tpot_ms"));
    row.itl = latency_from_json(r.object("itl_ms"));
    row.icl = latency_from_json(r.object("icl_ms"));
    row.e2e = latency_from_json(r.object("e2e_ms"));
    row.lag = latency_from_json(r.object("lag_ms"));
    // A sweep stored before time to first answer token was measured has none.
    if (o.contains("ttfa_ms")) row.ttfa = latency_from_json(r.object("ttfa_ms"));
    row.slo_pass = r.flag("slo_pass");
    for (const auto& v : r.array("slo_results")) {
        if (!v.is_object()) r.bad("slo_results", "an array of objects");
        const reader c{v.get_object()};
        row.slo_results.push_back({c.text("slo"), c.maybe("observed"), c.flag("pass")});
    }
    row.deficit = r.number("deficit");
    row.follows = r.flag("follows");
    const reader q{r.object("queue")};
    row.queue.judged = q.flag("judged");
    row.queue.growing = q.flag("growing");
    row.queue.batches = q.count("batches");
    row.queue.window_s = q.number("window_s");
    row.queue.mean = q.number("mean");
    row.queue.first = q.number("first");
    row.queue.last = q.number("last");
    row.queue.growth = q.number("growth");
    row.queue.p = q.number("p");
    // Absent from a sweep.json written before stages ran until decided.
    if (q.o.contains("growth_sd")) row.queue.growth_sd = q.number("growth_sd");
    if (q.o.contains("overload_excluded")) row.queue.overload_excluded = q.flag("overload_excluded");
    if (r.o.contains("undecided")) row.undecided = r.flag("undecided");
    row.queue.evidence = q.text("evidence");
    row.saturated = r.flag("saturated");
    row.aborted = r.flag("aborted");
    row.valid = r.flag("valid");
    row.generator_ok = r.flag("generator_ok");
    row.verdict = r.text("verdict");
    return row;
}

json::object to_json(const sweep_report& report) {
    const sweep_analysis& a = report.analysis;
    json::array stages;
    for (const auto& r : a.stages) stages.push_back(to_json(r));
    json::object knees;
    knees["slo"] = slo_knee_json(a.knees.slo);
    knees["saturation"] = knee_json(a.knees.saturation);
    if (a.knees.latency) knees["latency"] = knee_json(*a.knees.latency);
    json::array slos;
    for (const auto& s : report.slos)
        slos.push_back(json::object{{"text", s.text}, {"metric", s.metric}, {"stat", s.stat}, {"limit", s.limit}});
    return json::object{{"stages", std::move(stages)},
                        {"knees", std::move(knees)},
                        {"capacity", capacity_json(a.capacity)},
                        {"kind", "openloop-sweep"},
                        {"target", report.target},
                        {"mode", report.closed_loop ? "closed-loop" : "open-loop"},
                        {"slos", std::move(slos)},
                        {"min_samples", report.min_samples},
                        {"precision", report.precision},
                        {"interrupted", report.interrupted},
                        {"interruption", report.interrupted ? json::value(interruption_text(report)) : json::value(nullptr)},
                        {"cut_stage", report.cut ? json::value(to_json(*report.cut)) : json::value(nullptr)},
                        {"config", report.config}};
}

}  // namespace openloop
