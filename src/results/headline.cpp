#include "openloop/results/headline.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/json_text.hpp"
#include "openloop/results/number_text.hpp"


namespace openloop {

namespace {

struct headline_metric {
    std::string_view name;     // as the table says it
    const histogram* h = nullptr;  // null: throughput
};

std::optional<headline_metric> headline_metric_of(const run_result& r) {
    const std::string& m = r.context.headline;
    const run_stats& s = r.stats;
    if (m.empty()) return std::nullopt;
    if (m == "ttft") return headline_metric{"TTFT", &s.ttft};
    if (m == "ttfa") return headline_metric{"TTFA", &s.ttfa};
    if (m == "itl") return headline_metric{"ITL", &s.itl};
    if (m == "tpot") return headline_metric{"TPOT", &s.tpot};
    if (m == "e2e") return headline_metric{"E2E", &s.e2e};
    if (m == "session") return headline_metric{"session latency", &s.sessions.latency};
    return headline_metric{"throughput", nullptr};
}

constexpr double percentiles[] = {50, 90, 99};

}  // namespace

void check_headline(std::string_view metric) {
    for (const std::string_view m : {"ttft", "ttfa", "itl", "tpot", "e2e", "session", "throughput"})
        if (metric == m) return;
    throw input_error("--headline " + std::string(metric) +
                      ": expected ttft, ttfa (a thinking model's time to first answer token), itl, tpot, e2e, session "
                      "(an agent chain's latency) or throughput");
}

std::string headline_line(const run_result& r) {
    const auto f = headline_metric_of(r);
    if (!f) return {};
    std::string line = "headline       " + std::string(f->name);
    if (!f->h) {
        return line + " " + fmt("%.2f", r.request_throughput) + " req/s, " + fmt("%.1f", r.output_throughput) +
               " output tok/s";
    }
    if (f->h->count() == 0) return line + " -  (nothing measured)";
    for (const double p : percentiles)
        line += "  p" + fmt("%g", p) + " " + fmt_ms(ns_as_ms(f->h->percentile(p))) + " ms";
    return line;
}

std::optional<boost::json::object> headline_json(const run_result& r) {
    const auto f = headline_metric_of(r);
    if (!f) return std::nullopt;
    boost::json::object o{{"metric", r.context.headline}};
    if (!f->h) {
        o["requests_per_s"] = r.request_throughput;
        o["output_tokens_per_s"] = r.output_throughput;
        return o;
    }
    for (const double p : percentiles) {
        const std::string key = "p" + fmt("%g", p) + "_ms";
        o[key] = f->h->count() > 0 ? ms_json(ns_as_ms(f->h->percentile(p))) : boost::json::value(nullptr);
    }
    return o;
}

}  // namespace openloop
