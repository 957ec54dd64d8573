#pragma once
// What a soak watches on the server, picked from its /metrics: a fixed table
// of well-known serving metrics, each under a short openloop signal name,
// with aliases across engines and versions (the first name present wins).
// Pure: two parsed scrapes and the seconds between them in, values out.
//
// | signal                  | unit     | from (first present)                                                    | how |
// |-------------------------|----------|-------------------------------------------------------------------------|-----|
// | running                 | requests | vllm:num_requests_running, sglang:num_running_reqs, llamacpp:requests_processing | sum |
// | waiting                 | requests | vllm:num_requests_waiting, sglang:num_queue_reqs, llamacpp:requests_deferred     | sum |
// | kv_usage                | fraction | vllm:kv_cache_usage_perc, vllm:gpu_cache_usage_perc, sglang:token_usage, llamacpp:kv_cache_usage_ratio | mean |
// | preemptions_per_s       | 1/s      | vllm:num_preemptions_total, vllm:num_preemptions                        | rate |
// | prefix_hit_rate         | fraction | Δvllm:prefix_cache_hits_total / Δvllm:prefix_cache_queries_total, then the same of vllm:gpu_prefix_cache_*; else the gauges vllm:gpu_prefix_cache_hit_rate, sglang:cache_hit_rate | ratio of deltas, or mean |
// | prompt_tokens_per_s     | tokens/s | vllm:prompt_tokens_total, sglang:prompt_tokens_total, llamacpp:prompt_tokens_total | rate |
// | generation_tokens_per_s | tokens/s | vllm:generation_tokens_total, sglang:generation_tokens_total, llamacpp:tokens_predicted_total | rate |
// | server_rss_bytes        | bytes    | process_resident_memory_bytes                                           | sum |
// | gpu_memory_used_mib     | MiB      | DCGM_FI_DEV_FB_USED (MiB), nvidia_smi_memory_used_bytes, nvidia_gpu_memory_used_bytes (bytes, converted) | sum |
//
// sum: over every label set (several GPUs, models, engines); mean: over
// label sets, for fractions, which do not add. rate: Δcounter / seconds
// between the scrapes, needing the earlier scrape; a counter that went down
// (the server restarted) counts from zero, as Prometheus's rate() does.
// NaN samples are left out. A signal with no source present is absent, not 0.

#include "openloop/watch/prometheus_text.hpp"

#include <string>
#include <vector>

namespace openloop {

struct signal_value {
    std::string name;
    double value = 0;
    std::string unit;
};

// The table's signals, then one per extra name (`--scrape-metric NAME`),
// named NAME: a gauge or untyped metric's value summed over labels; a
// counter's rate (NAME or NAME_total); a histogram's or summary's mean over
// the window, Δ NAME_sum / Δ NAME_count. before may be nullptr (the first
// scrape): rates, deltas and means over the window are then absent.
std::vector<signal_value> select_signals(const prom_scrape& now, const prom_scrape* before, double seconds_between,
                                         const std::vector<std::string>& extra);

// The raw totals of the server's counters, summed over labels, for
// before/after deltas in summary.json: prompt_tokens, generation_tokens,
// preemptions, prefix_cache_hits, prefix_cache_queries (tokens in vLLM V1,
// blocks before it), requests_succeeded (vllm:request_success_total); the
// same aliases as the table. Absent when the server has no such counter.
std::vector<signal_value> counter_totals(const prom_scrape& scrape);

}  // namespace openloop
