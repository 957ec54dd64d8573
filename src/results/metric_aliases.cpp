#include "openloop/results/metric_aliases.hpp"

namespace openloop {

boost::json::object metric_aliases() {
    // Our key → the same quantity's name in other tools (docs/metrics.md has the caveats).
    return boost::json::object{
        {"ttft",
         {{"vllm", "ttft"},
          {"sglang", "ttft"},
          {"genai_perf", "time_to_first_token"},
          {"aiperf", "time_to_first_token"},
          {"guidellm", "time_to_first_token_ms"}}},
        {"tpot",
         {{"vllm", "tpot"},
          {"sglang", "tpot"},
          {"genai_perf", "inter_token_latency"},
          {"aiperf", "inter_token_latency"},
          {"guidellm", "inter_token_latency_ms"}}},
        {"itl", {{"vllm", "itl"}, {"sglang", "itl"}}},
        {"ttfa", {{"aiperf", "time_to_first_output_token"}}},
        {"reasoning_tokens", {{"aiperf", "reasoning_token_count"}}},
        {"icl", {{"aiperf", "inter_chunk_latency"}}},
        {"e2el",
         {{"vllm", "e2el"},
          {"sglang", "e2e_latency"},
          {"genai_perf", "request_latency"},
          {"aiperf", "request_latency"},
          {"guidellm", "request_latency"}}},
        {"request_throughput",
         {{"sglang", "request_throughput"},
          {"genai_perf", "request_throughput"},
          {"aiperf", "request_throughput"},
          {"guidellm", "requests_per_second"}}},
        {"output_throughput",
         {{"sglang", "output_throughput"},
          {"genai_perf", "output_token_throughput"},
          {"aiperf", "output_token_throughput"},
          {"guidellm", "output_tokens_per_second"}}},
        {"total_token_throughput",
         {{"sglang", "total_throughput"}, {"aiperf", "total_token_throughput"}, {"guidellm", "tokens_per_second"}}},
    };
}

}  // namespace openloop
