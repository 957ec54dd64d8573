#include "openloop/results/threshold.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/results/model_report.hpp"

#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace openloop {

namespace {

const char* const rate_metrics[] = {"request_throughput", "output_throughput", "goodput"};

bool is_rate(const std::string& m) {
    for (const char* r : rate_metrics)
        if (m == r) return true;
    return false;
}

// FAMILY_STAT for a latency metric; e2e is the table's name for e2el.
const histogram* latency_of(const run_result& r, const std::string& metric, std::string& stat) {
    const auto cut = metric.rfind('_');
    if (cut == std::string::npos) return nullptr;
    std::string family = metric.substr(0, cut);
    stat = metric.substr(cut + 1);
    if (family == "e2e") family = "e2el";
    for (const auto& f : latency_families)
        if (f.key == family) return &(r.stats.*f.member);
    return nullptr;
}

std::string shown(const std::string& metric, double v) {
    char buf[64];
    if (metric == "error_rate") std::snprintf(buf, sizeof buf, "%.3g %%", v * 100);
    else if (is_rate(metric)) std::snprintf(buf, sizeof buf, "%.4g", v);
    else std::snprintf(buf, sizeof buf, "%.3f ms", v);
    return buf;
}

}  // namespace

threshold parse_threshold(std::string_view text) {
    threshold t;
    t.text = std::string(text);
    const auto bad = [&](const std::string& why) {
        return std::invalid_argument("--threshold '" + t.text + "': " + why);
    };
    const std::size_t op = text.find_first_of("<>");
    if (op == std::string_view::npos || op == 0 || op + 1 >= text.size())
        throw bad("write METRIC<LIMIT or METRIC>LIMIT, e.g. ttft_p99<1s or request_throughput>50");
    t.metric = std::string(text.substr(0, op));
    if (const auto tag = t.metric.find('{'); tag != std::string::npos) {
        const std::string_view inside = std::string_view(t.metric).substr(tag + 1);
        constexpr std::string_view key = "model=";
        if (inside.size() < key.size() + 2 || !inside.starts_with(key) || inside.back() != '}')
            throw bad("write a model's metric as METRIC{model=NAME}, e.g. ttft_p99{model=sql-lora}<2s");
        t.model = std::string(inside.substr(key.size(), inside.size() - key.size() - 1));
        t.metric.erase(tag);
        const std::string family = t.metric.substr(0, t.metric.rfind('_'));
        if (t.metric != "error_rate" && !is_rate(t.metric) && family != "ttft" && family != "tpot" && family != "itl" &&
            family != "e2e" && family != "e2el" && family != "ttfa")
            throw bad("model '" + t.model + "' keeps no '" + t.metric +
                      "': a model's metrics are ttft, tpot, itl, e2e and ttfa with a statistic; error_rate; "
                      "request_throughput, output_throughput, goodput");
    }
    t.below = text[op] == '<';
    const std::string_view limit = text.substr(op + 1);
    if (t.metric == "error_rate") {
        t.limit = parse_fraction(limit, "--threshold error_rate");
    } else if (is_rate(t.metric)) {
        const auto v = as_number(limit);
        if (!v) throw bad("'" + std::string(limit) + "' is not a number");
        t.limit = *v;
    } else {
        run_result probe;
        std::string stat;
        const histogram* h = latency_of(probe, t.metric, stat);
        probe.stats.ttft.record(1);
        if (h == nullptr || !latency_ms(probe.stats.ttft, stat))
            throw bad("no metric '" + t.metric +
                      "' (ttft, tpot, itl, e2e, lag, connect or queue with _mean, _median, _max or _pN; error_rate; "
                      "request_throughput, output_throughput, goodput)");
        t.limit = parse_duration_ms(limit, "--threshold " + t.metric);
    }
    return t;
}

std::optional<double> threshold_value(const run_result& r, const std::string& metric) {
    if (metric == "error_rate") {
        const auto ended = r.stats.completed + r.stats.failed;
        if (ended == 0) return std::nullopt;
        return static_cast<double>(r.stats.failed) / static_cast<double>(ended);
    }
    if (metric == "request_throughput") return r.request_throughput;
    if (metric == "output_throughput") return r.output_throughput;
    if (metric == "goodput") return r.request_goodput;
    std::string stat;
    const histogram* h = latency_of(r, metric, stat);
    return h ? latency_ms(*h, stat) : std::nullopt;
}

std::optional<std::string> threshold_failure(const threshold& t, const run_result& r) {
    std::optional<double> v;
    std::string of = t.metric;
    if (t.model.empty()) {
        v = threshold_value(r, t.metric);
    } else {
        const model_stats* m = find_model(r.stats, t.model);
        if (m == nullptr) {
            std::string names;
            for (const model_stats& each : r.stats.by_model) names += (names.empty() ? "" : ", ") + each.name;
            return t.text + ": the run has no model '" + t.model + "'" +
                   (names.empty() ? " (it was not a mixed run)" : " (its models: " + names + ")");
        }
        v = model_value(r, *m, t.metric);
        of += " of model " + t.model;
    }
    if (!v) return t.text + ": no samples of " + of;
    const bool holds = t.below ? *v < t.limit : *v > t.limit;
    if (holds) return std::nullopt;
    if (std::isinf(*v)) {
        // Only a time to first answer token has infinite samples: requests that never answered.
        const model_stats* m = t.model.empty() ? nullptr : find_model(r.stats, t.model);
        const std::uint64_t never = m ? m->ttfa.infinite_count() : never_answered(r.stats);
        const std::uint64_t completed = m ? m->completed : r.stats.completed;
        return t.text + ": " + of + " was infinite: " + std::to_string(never) + " of " + std::to_string(completed) +
               " completed requests never answered";
    }
    return t.text + ": " + of + " was " + shown(t.metric, *v);
}

}  // namespace openloop
