#include "openloop/results/run_result.hpp"

#include "openloop/base/json_text.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <charconv>
#include <string>
#include <utility>

namespace openloop {

namespace {

// "mixed" / exact_name / estimated_name from how many items came from each source.
std::string_view source_name(std::uint64_t exact, std::uint64_t estimated, std::string_view exact_name,
                             std::string_view estimated_name) {
    if (exact > 0 && estimated > 0) {
        return "mixed";
    }
    if (exact > 0) {
        return exact_name;
    }
    if (estimated > 0) {
        return estimated_name;
    }
    return {};
}

double per_second(double amount, double duration) { return duration > 0 ? amount / duration : 0.0; }

// A log rebuilt (report, merge) names its models in the order they first ended: put them
// back in --model's order ("a=0.5,b=0.5"), as the run reported them; names not in it last.
void order_models(std::vector<model_stats>& models, std::string_view mix) {
    const auto place = [&](const std::string& name) {
        for (std::size_t at = 0, i = 0; at < mix.size(); ++i) {
            const std::size_t end = std::min(mix.find(',', at), mix.size());
            if (mix.substr(at, std::min(mix.find('=', at), end) - at) == name) return i;
            at = end + 1;
        }
        return std::string_view::npos;
    };
    std::stable_sort(models.begin(), models.end(),
                     [&](const model_stats& a, const model_stats& b) { return place(a.name) < place(b.name); });
}

}  // namespace

std::optional<double> latency_ms(const histogram& h, std::string_view stat) {
    if (h.count() == 0) {
        return std::nullopt;
    }
    if (stat == "mean") return h.mean() / 1e6;
    if (stat == "std") return h.stddev() / 1e6;
    if (stat == "median") return ns_as_ms(h.percentile(50));
    if (stat == "min") return ns_as_ms(h.min());
    if (stat == "max") return ns_as_ms(h.max());
    if (stat.size() > 1 && stat[0] == 'p') {
        double p = 0;
        const auto res = std::from_chars(stat.data() + 1, stat.data() + stat.size(), p);
        if (res.ec == std::errc() && res.ptr == stat.data() + stat.size() && p > 0 && p <= 100) {
            return ns_as_ms(h.percentile(p));
        }
    }
    return std::nullopt;
}

boost::json::value latency_ms_json(const histogram& h, std::string_view stat) {
    const auto v = latency_ms(h, stat);
    return v ? ms_json(*v) : boost::json::value(nullptr);
}

std::uint64_t never_answered(const run_stats& s) { return s.ttfa.infinite_count(); }

run_result make_run_result(run_stats stats, run_context context) {
    run_result r;
    if (!context.model_mix.empty()) order_models(stats.by_model, context.model_mix);
    r.validity = judge(stats, context);
    r.errors = count_errors(stats);
    r.duration_s = stats.duration_s();
    const double d = r.duration_s;
    r.request_throughput = per_second(static_cast<double>(stats.completed), d);
    r.request_goodput = per_second(static_cast<double>(stats.good), d);
    r.output_throughput = per_second(static_cast<double>(stats.total_output_tokens), d);
    r.total_token_throughput = per_second(static_cast<double>(stats.total_input_tokens + stats.total_output_tokens), d);
    r.output_tokens_source = source_name(stats.output_from_usage, stats.output_estimated, "usage", "chunks");
    // Non-streamed answers without usage were not counted at all: never hidden behind "usage".
    if (stats.output_uncounted > 0) r.output_tokens_source = r.output_tokens_source.empty() ? "none" : "mixed";
    r.itl_source = source_name(stats.itl_token_samples, stats.itl_chunk_samples, "tokens", "chunks");
    const reasoning_stats& t = stats.reasoning;
    const int sources = (t.from_usage > 0) + (t.from_deltas > 0) + (t.from_split > 0) + (t.estimated > 0);
    r.reasoning_tokens_source = sources > 1            ? "mixed"
                                : t.from_usage > 0     ? "usage"
                                : t.from_deltas > 0    ? "usage_deltas"
                                : t.from_split > 0     ? "usage_deltas_split"
                                : t.estimated > 0      ? "chunks"
                                                       : "";
    r.stats = std::move(stats);
    r.context = std::move(context);
    return r;
}

}  // namespace openloop
