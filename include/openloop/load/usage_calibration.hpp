#pragma once
// Word costs for a server with no tokenize endpoint, from the usage.prompt_tokens
// of small probe requests (usage_probe):
//   usage  every vocabulary word's cost measured by probes (129, cached per
//          model like the server mode's, and 8 sample prompts checked)
//   local  a local tokenizer (hf:, tiktoken:) counts the content; two probes
//          tell what the server adds around it (BOS, the chat template), so
//          no template has to be rendered here, and 8 sample prompts are
//          checked against the server's counts
// Socket-free: calls go through the caller's post function.

#include "openloop/load/calibration.hpp"

namespace openloop {

// Probe requests the usage mode makes when nothing is cached: a fingerprint,
// 1 + 2 x 64 word counts, and the sample check.
inline constexpr int usage_probe_requests = 1 + 1 + 2 * static_cast<int>(vocab_size_words) + 8;

// The longest sample prompt a usage check sends: a server counts only what fits
// its context (llama.cpp truncates a prompt past its slot's, vLLM refuses one
// past max_model_len), where a tokenize endpoint counts any length.
inline constexpr int usage_check_longest = 900;

// Throws std::runtime_error naming the probe's problem when the server gives no usage.
calibration_result usage_costs(const calibration_request& r, const http_post_fn& post);

// r.local must be set. Throws when the server's counts disagree with the
// local tokenizer's beyond a constant (another model's tokenizer); a server
// without usage leaves the content's count alone, with a note saying so.
calibration_result local_costs(const calibration_request& r, const http_post_fn& post);

}  // namespace openloop
