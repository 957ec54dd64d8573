#pragma once
// Response bodies as real servers and the simulator send them, for the
// response reader's tests.

#include <string>

namespace recorded {

// vLLM 0.6+ chat with stream_options {include_usage, continuous_usage_stats}:
// a role-only first delta, usage (cumulative) on every chunk, a usage-only
// final chunk with no choices, then [DONE].
inline const std::string vllm_chat =
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":12,"completion_tokens":0}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"Hello"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":13,"completion_tokens":1}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":" w\u00f6rld"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":15,"completion_tokens":3}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[{"index":0,"delta":{"content":"!"},"logprobs":null,"finish_reason":"stop","stop_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":16,"completion_tokens":4}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-7c1","object":"chat.completion.chunk","created":1733000000,"model":"meta-llama/Llama-3.1-8B-Instruct","choices":[],"usage":{"prompt_tokens":12,"total_tokens":16,"completion_tokens":4,"prompt_tokens_details":{"cached_tokens":8}}})"
    "\n\n"
    "data: [DONE]\n\n";

// vLLM completions with include_usage only: text chunks, then usage.
inline const std::string vllm_completions =
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[{"index":0,"text":" Paris","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})"
    "\n\n"
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[{"index":0,"text":" is","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":null})"
    "\n\n"
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[{"index":0,"text":" lovely","logprobs":null,"finish_reason":"length","stop_reason":null}],"usage":null})"
    "\n\n"
    R"(data: {"id":"cmpl-2f","object":"text_completion","created":1733000000,"model":"Qwen/Qwen2.5-7B","choices":[],"usage":{"prompt_tokens":6,"total_tokens":9,"completion_tokens":3}})"
    "\n\n"
    "data: [DONE]\n\n";

// llama.cpp's llama-server (OpenAI-compatible chat): a role chunk with null
// content, content chunks, and usage with its own timings in the final chunk,
// which carries finish_reason and an empty delta; usage comes unasked.
inline const std::string llama_server =
    R"(data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk"})"
    "\n\n"
    R"(data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":"Bonjour"}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk"})"
    "\n\n"
    R"(data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" \u00e0 tous"}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk"})"
    "\n\n"
    R"(data: {"choices":[{"finish_reason":"stop","index":0,"delta":{}}],"created":1733000000,"id":"chatcmpl-Qm3","model":"gpt-3.5-turbo","system_fingerprint":"b4273-a1b2c3d","object":"chat.completion.chunk","usage":{"completion_tokens":3,"prompt_tokens":10,"total_tokens":13},"timings":{"prompt_n":10,"prompt_ms":8.51,"prompt_per_token_ms":0.851,"prompt_per_second":1175.1,"predicted_n":3,"predicted_ms":31.2,"predicted_per_token_ms":10.4,"predicted_per_second":96.2}})"
    "\n\n"
    "data: [DONE]\n\n";

// The simulator's head of every chunk.
#define SIM_HEAD R"({"id":"chatcmpl-88","object":"chat.completion.chunk","created":1733000000,"model":"sim-8b","choices":)"

// --quirk no-role-chunk,usage-in-last-chunk: usage arrives inside the last
// content chunk, with its finish_reason, and no usage-only chunk follows.
inline const std::string sim_usage_in_last_chunk =
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" alpha beta"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" gamma"},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":32,"total_tokens":35,"completion_tokens":3}})"
    "\n\n"
    "data: [DONE]\n\n";

// --quirk empty-choices-chunk,keepalive-comments,no-done: a filter-result
// chunk with no choices first, ": keep-alive" comments between chunks, and
// the body ends without [DONE].
inline const std::string sim_comments_no_done =
    "data: " SIM_HEAD R"([]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    ": keep-alive\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" one"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    ": keep-alive\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" two"},"logprobs":null,"finish_reason":"stop"}]})"
    "\n\n"
    "data: " SIM_HEAD R"([],"usage":{"prompt_tokens":16,"total_tokens":18,"completion_tokens":2}})"
    "\n\n";

// The firehose coalesces events of several tokens each into one write, and
// --quirk ignore-stream-options sends no usage at all.
inline const std::string sim_firehose_no_usage =
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" a b c d"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" e f g h"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" i j"},"logprobs":null,"finish_reason":"length"}]})"
    "\n\n"
    "data: [DONE]\n\n";

// Field lines servers add (event, id, retry) and a comment before the first event.
inline const std::string with_fields =
    ": stream opened\n"
    "retry: 3000\n\n"
    "event: message\nid: 1\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"x"},"logprobs":null,"finish_reason":null}],"usage":{"prompt_tokens":4,"total_tokens":6,"completion_tokens":2}})"
    "\n\n"
    "id: 2\ndata: " SIM_HEAD R"([{"index":0,"delta":{"content":"yz"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":4,"total_tokens":7,"completion_tokens":3}})"
    "\n\n"
    "data: [DONE]\n\n";

// vLLM reports an engine failure mid-stream as an error object, then [DONE].
inline const std::string vllm_error_mid_stream =
    R"(data: {"id":"chatcmpl-e","object":"chat.completion.chunk","created":1733000000,"model":"m","choices":[{"index":0,"delta":{"content":"Par"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    R"(data: {"error":{"object":"error","message":"The engine died unexpectedly.","type":"InternalServerError","param":null,"code":500}})"
    "\n\n"
    R"(data: {"id":"chatcmpl-e","object":"chat.completion.chunk","created":1733000000,"model":"m","choices":[{"index":0,"delta":{"content":"is"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: [DONE]\n\n";

// --fault-bad-chunk: a chunk cut off mid-object, as a buggy proxy sends.
inline const std::string sim_bad_chunk =
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" fine"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" tru)"
    "\n\n"
    "data: " SIM_HEAD R"([{"index":0,"delta":{"content":" more"},"logprobs":null,"finish_reason":null}]})"
    "\n\n"
    "data: [DONE]\n\n";

inline const std::string content_chunk = "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"ok"},"finish_reason":null}]})"
                                  "\n\n";

}  // namespace recorded
