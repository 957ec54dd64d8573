#pragma once
// Everything `openloop sim` is told: the cost model, where to listen, what to
// get wrong on purpose, how to treat idle connections.

#include "openloop/load/length_dist.hpp"
#include "openloop/sim/engine.hpp"
#include "openloop/sim/faults.hpp"
#include "openloop/sim/media_tokens.hpp"
#include "openloop/sim/misbehaviour.hpp"
#include "openloop/sim/sim_tokenizer.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

// Where a thinking model's streamed thinking goes: vLLM's current "reasoning"
// delta, the older "reasoning_content" (SGLang, DeepSeek, vLLM before 2026),
// whose usage has no completion_tokens_details, or the content itself between
// <think> and </think> (a server without a reasoning parser: llama.cpp without
// --reasoning-format, many gateways, older Ollama), usage without details too.
enum class reasoning_shape { reasoning, reasoning_content, think_tags };

// What a chat answer is beyond its text: --reasoning-tokens, --reasoning-shape,
// --tool-chain, --tool-call-share, --parallel-tool-calls.
struct answer_config {
    std::optional<length_dist> reasoning_tokens;  // none: the model does not think
    reasoning_shape shape = reasoning_shape::reasoning;
    int tool_chain = 0;          // call a tool while fewer tool results follow the last user message
    double tool_call_share = 0;  // without a chain: the chance a tool-bearing request calls one
    int parallel_calls = 1;      // tools called at once by a tool-call answer (index 0, 1, ...)
};

struct sim_config {
    cost_model model;
    std::string host = "127.0.0.1";
    std::uint16_t port = 8000;  // 0 picks a free port; the bound one is printed
    std::uint64_t seed = 0;
    std::string served_model_name = "openloop-sim";
    std::vector<std::string> lora_modules;  // LoRA adapters served besides it (model.max_loras, lora_load_ms)
    fault_config faults;
    sim_quirks quirks;
    misbehaviour_config misbehaviour;  // leaks and slowdowns for soak tests
    answer_config answers;
    std::string log_path;  // server-side JSONL, one line per completion request
    bool log_content = false;  // ... with each request's messages (or prompt) and the text generated
    std::string tls_cert;  // PEM; with tls_key, serve HTTPS only
    std::string tls_key;
    std::size_t max_request_bytes = 64u << 20;
    sim_tokenizer tokenizer;
    media_token_rule media;  // --image-tokens, --audio-tokens-per-s: what a chat request's images and audio count
    bool tokenize_endpoint = true;  // false: POST /tokenize is 404, as behind a hosted API or gateway
    // An idle connection (no byte of a next request, or of the first one after
    // the handshake) is closed after this long, as uvicorn (vLLM, SGLang) and
    // cpp-httplib (llama.cpp) do after 5 s; 0 never closes it.
    std::chrono::milliseconds keep_alive_timeout{5000};
    // The N-th request of a connection is answered with Connection: close
    // (nginx keepalive_requests, cpp-httplib keep_alive_max_count); 0: no limit.
    int keep_alive_max_requests = 0;
    bool exit_with_parent = false;  // a child of openloop run/tests: never outlive the parent
};

}  // namespace openloop
