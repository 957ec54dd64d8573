#include "openloop/watch/server_signals.hpp"

#include "openloop/base/quantity.hpp"

#include <cmath>
#include <optional>
#include <span>
#include <string_view>
#include <unordered_map>

namespace openloop {
namespace {

struct total {
    double sum = 0;
    std::size_t n = 0;
};

// One pass over a scrape: each sample name's sum and label-set count.
class by_name {
public:
    explicit by_name(const prom_scrape& s) {
        for (const auto& sample : s.samples) {
            if (std::isnan(sample.value)) continue;
            auto& t = totals_[sample.name];
            t.sum += sample.value;
            ++t.n;
        }
    }
    const total* find(std::string_view name) const {
        const auto it = totals_.find(name);
        return it == totals_.end() ? nullptr : &it->second;
    }

private:
    std::unordered_map<std::string_view, total> totals_;
};

using names = std::span<const std::string_view>;

constexpr std::string_view running_names[]{"vllm:num_requests_running", "sglang:num_running_reqs", "llamacpp:requests_processing"};
constexpr std::string_view waiting_names[]{"vllm:num_requests_waiting", "sglang:num_queue_reqs", "llamacpp:requests_deferred"};
constexpr std::string_view kv_names[]{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage",
                         "llamacpp:kv_cache_usage_ratio"};
constexpr std::string_view preemption_names[]{"vllm:num_preemptions_total", "vllm:num_preemptions"};
constexpr std::string_view prompt_names[]{"vllm:prompt_tokens_total", "sglang:prompt_tokens_total", "llamacpp:prompt_tokens_total"};
constexpr std::string_view generation_names[]{"vllm:generation_tokens_total", "sglang:generation_tokens_total",
                                 "llamacpp:tokens_predicted_total"};
constexpr std::string_view hit_names[]{"vllm:prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits_total"};
constexpr std::string_view query_names[]{"vllm:prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries_total"};
constexpr std::string_view hit_rate_gauges[]{"vllm:gpu_prefix_cache_hit_rate", "sglang:cache_hit_rate"};
constexpr std::string_view success_names[]{"vllm:request_success_total"};
constexpr std::string_view rss_names[]{"process_resident_memory_bytes"};

struct scaled {
    std::string_view name;
    double scale;
};
constexpr scaled gpu_memory_names[]{
    {"DCGM_FI_DEV_FB_USED", 1.0}, {"nvidia_smi_memory_used_bytes", 1.0 / bytes_per_mib}, {"nvidia_gpu_memory_used_bytes", 1.0 / bytes_per_mib}};

// The first name present, and its total.
std::optional<std::pair<std::string_view, total>> first_of(const by_name& s, names list) {
    for (const auto n : list)
        if (const auto* t = s.find(n)) return std::pair{n, *t};
    return std::nullopt;
}

// A counter's increase, counting from zero after a reset.
double increase(double now, double before) { return now >= before ? now - before : now; }

class selector {
public:
    selector(const prom_scrape& now, const prom_scrape* before, double seconds)
        : now_(now), before_(before ? std::optional<by_name>(*before) : std::nullopt), seconds_(seconds) {}

    void sum(std::string_view signal, std::string_view unit, names list) {
        if (const auto hit = first_of(now_, list)) add(signal, hit->second.sum, unit);
    }
    void mean(std::string_view signal, std::string_view unit, names list) {
        if (const auto hit = first_of(now_, list)) add(signal, hit->second.sum / hit->second.n, unit);
    }
    void rate(std::string_view signal, std::string_view unit, names list) {
        if (const auto hit = first_of(now_, list)) rate_of(signal, unit, hit->first);
    }
    void gpu_memory() {
        for (const auto& [name, scale] : gpu_memory_names) {
            if (const auto* t = now_.find(name)) {
                add("gpu_memory_used_mib", t->sum * scale, "MiB");
                return;
            }
        }
    }
    void prefix_hit_rate() {
        for (std::size_t i = 0; i < std::size(hit_names); ++i) {
            const auto* h = now_.find(hit_names[i]);
            const auto* q = now_.find(query_names[i]);
            if (h == nullptr || q == nullptr) continue;
            if (!before_) return;
            const auto* hb = before_->find(hit_names[i]);
            const auto* qb = before_->find(query_names[i]);
            if (hb == nullptr || qb == nullptr) return;
            const double dq = increase(q->sum, qb->sum);
            if (dq > 0) add("prefix_hit_rate", increase(h->sum, hb->sum) / dq, "fraction");
            return;
        }
        mean("prefix_hit_rate", "fraction", hit_rate_gauges);
    }
    void extra(const prom_scrape& scrape, const std::string& name) {
        if (const auto* t = now_.find(name)) {
            if (type_of(scrape, name) == prom_type::counter) rate_of(name, "1/s", name);
            else add(name, t->sum, "");
            return;
        }
        const std::string total_name = name + "_total";
        if (now_.find(total_name) != nullptr) {
            rate_of(name, "1/s", total_name);
            return;
        }
        const std::string sum_name = name + "_sum", count_name = name + "_count";
        const auto* s = now_.find(sum_name);
        const auto* c = now_.find(count_name);
        if (s == nullptr || c == nullptr || !before_) return;
        const auto* sb = before_->find(sum_name);
        const auto* cb = before_->find(count_name);
        if (sb == nullptr || cb == nullptr) return;
        const double dc = increase(c->sum, cb->sum);
        if (dc > 0) add(name, (c->sum >= cb->sum ? s->sum - sb->sum : s->sum) / dc, "mean");
    }

    std::vector<signal_value> take() { return std::move(out_); }

private:
    void add(std::string_view signal, double v, std::string_view unit) {
        out_.push_back(signal_value{std::string(signal), v, std::string(unit)});
    }
    void rate_of(std::string_view signal, std::string_view unit, std::string_view sample) {
        if (!before_ || !(seconds_ > 0)) return;
        const auto* b = before_->find(sample);
        if (b == nullptr) return;
        add(signal, increase(now_.find(sample)->sum, b->sum) / seconds_, unit);
    }

    by_name now_;
    std::optional<by_name> before_;
    double seconds_;
    std::vector<signal_value> out_;
};

}  // namespace

std::vector<signal_value> select_signals(const prom_scrape& now, const prom_scrape* before, double seconds_between,
                                         const std::vector<std::string>& extra) {
    selector s(now, before, seconds_between);
    s.sum("running", "requests", running_names);
    s.sum("waiting", "requests", waiting_names);
    s.mean("kv_usage", "fraction", kv_names);
    s.rate("preemptions_per_s", "1/s", preemption_names);
    s.prefix_hit_rate();
    s.rate("prompt_tokens_per_s", "tokens/s", prompt_names);
    s.rate("generation_tokens_per_s", "tokens/s", generation_names);
    s.sum("server_rss_bytes", "bytes", rss_names);
    s.gpu_memory();
    for (const auto& name : extra) s.extra(now, name);
    return s.take();
}

std::vector<signal_value> counter_totals(const prom_scrape& scrape) {
    const by_name s(scrape);
    std::vector<signal_value> out;
    auto add = [&](std::string_view signal, std::string_view unit, names list) {
        if (const auto hit = first_of(s, list)) out.push_back({std::string(signal), hit->second.sum, std::string(unit)});
    };
    add("prompt_tokens", "tokens", prompt_names);
    add("generation_tokens", "tokens", generation_names);
    add("preemptions", "count", preemption_names);
    add("prefix_cache_hits", "count", hit_names);
    add("prefix_cache_queries", "count", query_names);
    add("requests_succeeded", "requests", success_names);
    return out;
}

}  // namespace openloop
