#pragma once
// GET /metrics of the simulator: Prometheus text under vLLM's metric names, so
// whatever scrapes a vLLM server (openloop's reporter included) scrapes this too.

#include "openloop/sim/engine.hpp"
#include "openloop/sim/faults.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// What the server counts besides the engine.
struct sim_counters {
    std::int64_t faults[fault_kinds] = {};  // by fault, as cast to int
    std::int64_t idle_closes = 0;           // keep-alive timeouts
    std::int64_t stale_drops = 0;           // --quirk close-stale
    std::int64_t completion_closes = 0;     // --quirk close-after-completion
    std::int64_t max_requests_closes = 0;   // Connection: close on the last request allowed
    std::int64_t success = 0;
    std::int64_t accept_pauses = 0;         // accept backed off: out of file descriptors
    // The firehose has no engine: it counts its own streams and tokens.
    std::int64_t streams = 0;
    std::int64_t prompt_tokens = 0;
    std::int64_t generated_tokens = 0;
    std::int64_t leaked_bytes = 0;   // --leak-bytes-per-request, kept
    std::int64_t leak_refusals = 0;  // leaks the store's limit refused
};

// The exposition text; model_json is the served model name as a JSON string,
// which is also a valid Prometheus label value; adapters: --lora-modules' names
// (with any, vLLM's vllm:lora_requests_info and the loads).
std::string metrics_text(const sim_counters& c, const engine& e, std::string_view model_json,
                         const std::vector<std::string>& adapters = {});

}  // namespace openloop
