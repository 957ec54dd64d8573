#include "openloop/sim/metrics.hpp"

#include "openloop/measure/resource_usage.hpp"
#include "openloop/sim/event_writer.hpp"

#include <charconv>
#include <chrono>
#include <initializer_list>
#include <utility>

namespace openloop {

namespace {

// vLLM's vllm:lora_requests_info: an info gauge whose labels say which adapters run and wait,
// its value when that was (Unix seconds).
void append_lora_info(std::string& out, const engine& e, const std::vector<std::string>& adapters) {
    const auto names = [&](const std::vector<int>& which) {
        std::string s;
        for (int a : which) s.append(s.empty() ? "" : ",").append(adapters[static_cast<std::size_t>(a)]);
        return s;
    };
    out.append("# HELP vllm:lora_requests_info Running stats on lora requests.\n"
               "# TYPE vllm:lora_requests_info gauge\nvllm:lora_requests_info{max_lora=\"");
    append_int(out, e.loras().max_loras());
    out.append("\",running_lora_adapters=\"").append(names(e.loras().running()));
    out.append("\",waiting_lora_adapters=\"").append(names(e.waiting_adapters())).append("\"} ");
    char buf[32];
    const double now = std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    out.append(buf, std::to_chars(buf, buf + sizeof buf, now).ptr).append("\n");
    out.append("# HELP openloop_sim_lora_loads_total LoRA adapters loaded (--lora-load-ms each).\n"
               "# TYPE openloop_sim_lora_loads_total counter\nopenloop_sim_lora_loads_total ");
    append_int(out, e.loras().loads());
    out.push_back('\n');
}

}  // namespace

std::string metrics_text(const sim_counters& c, const engine& e, std::string_view model_json,
                         const std::vector<std::string>& adapters) {
    const std::string label = "{model_name=" + std::string(model_json) + "}";
    std::string out;
    auto metric = [&](std::string_view name, std::string_view type, std::string_view help, double v) {
        out.append("# HELP ").append(name).append(" ").append(help).append("\n");
        out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
        out.append(name).append(label).append(" ");
        char buf[32];
        auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
        out.append(buf, end).append("\n");
    };
    const bool fh = e.model().firehose;
    metric("vllm:num_requests_running", "gauge", "Requests in the running batch.",
           fh ? static_cast<double>(c.streams) : static_cast<double>(e.running()));
    metric("vllm:num_requests_waiting", "gauge", "Requests waiting to be scheduled.",
           fh ? 0.0 : static_cast<double>(e.waiting()));
    metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage, 1 means 100 percent.", e.kv_usage());
    metric("vllm:gpu_cache_usage_perc", "gauge", "KV-cache usage (name before vLLM 0.10).", e.kv_usage());
    metric("vllm:prompt_tokens_total", "counter", "Prompt tokens processed.",
           static_cast<double>(fh ? c.prompt_tokens : e.prompt_tokens_total()));
    metric("vllm:generation_tokens_total", "counter", "Generation tokens produced.",
           static_cast<double>(fh ? c.generated_tokens : e.generation_tokens_total()));
    metric("vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.",
           static_cast<double>(e.prefix_cache_queries() * e.model().block_size));
    metric("vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache.",
           static_cast<double>(e.prefix_cache_hits() * e.model().block_size));
    metric("vllm:request_success_total", "counter", "Requests finished.", static_cast<double>(c.success));
    if (!adapters.empty()) append_lora_info(out, e, adapters);
    out.append("# HELP openloop_sim_faults_total Faults injected, by kind.\n# TYPE openloop_sim_faults_total counter\n");
    for (int k = 1; k < fault_kinds; ++k) {
        out.append("openloop_sim_faults_total{kind=\"").append(fault_name(static_cast<fault>(k))).append("\"} ");
        append_int(out, c.faults[k]);
        out.push_back('\n');
    }
    out.append("# HELP openloop_sim_keepalive_closes_total Connections the server closed, by reason.\n"
               "# TYPE openloop_sim_keepalive_closes_total counter\n");
    for (auto [reason, n] : {std::pair<std::string_view, std::int64_t>{"idle_timeout", c.idle_closes},
                             {"max_requests", c.max_requests_closes},
                             {"quirk_close_stale", c.stale_drops},
                             {"quirk_close_after_completion", c.completion_closes}}) {
        out.append("openloop_sim_keepalive_closes_total{reason=\"").append(reason).append("\"} ");
        append_int(out, n);
        out.push_back('\n');
    }
    metric("openloop_sim_accept_pauses_total", "counter",
           "Pauses of the accept loop when out of file descriptors (10 ms doubling to 100 ms).",
           static_cast<double>(c.accept_pauses));
    metric("openloop_sim_leaked_bytes", "gauge", "Memory leaked on purpose (--leak-bytes-per-request), resident.",
           static_cast<double>(c.leaked_bytes));
    metric("openloop_sim_leak_refused_total", "counter", "Leaks refused at the store's limit (8 GiB).",
           static_cast<double>(c.leak_refusals));
    metric("process_resident_memory_bytes", "gauge", "Resident memory of the simulator.",
           static_cast<double>(resident_memory_bytes()));
    return out;
}

}  // namespace openloop
