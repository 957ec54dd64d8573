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

// vLLM's /v1/responses stream (its SDK's field order: "type" last), a named
// SSE event per data line: the lifecycle events, three output_text deltas,
// the .done events with the whole text, and response.completed with the
// usage, status incomplete at max_output_tokens; no [DONE].
#define VLLM_RESPONSE_HEAD R"({"id":"resp_a1","created_at":1733000000,"error":null,"incomplete_details":null,"instructions":null,"model":"Qwen/Qwen3-8B","object":"response","parallel_tool_calls":true,"temperature":0.0,"tool_choice":"auto","tools":[],"top_p":1.0,"max_output_tokens":4,)"
inline const std::string vllm_responses =
    "event: response.created\n"
    R"(data: {"response":)" VLLM_RESPONSE_HEAD R"("output":[],"status":"in_progress","usage":null},"sequence_number":0,"type":"response.created"})"
    "\n\n"
    "event: response.in_progress\n"
    R"(data: {"response":)" VLLM_RESPONSE_HEAD R"("output":[],"status":"in_progress","usage":null},"sequence_number":1,"type":"response.in_progress"})"
    "\n\n"
    "event: response.output_item.added\n"
    R"(data: {"item":{"id":"msg_b2","content":[],"role":"assistant","status":"in_progress","type":"message"},"output_index":0,"sequence_number":2,"type":"response.output_item.added"})"
    "\n\n"
    "event: response.content_part.added\n"
    R"(data: {"content_index":0,"item_id":"msg_b2","output_index":0,"part":{"annotations":[],"text":"","type":"output_text","logprobs":null},"sequence_number":3,"type":"response.content_part.added"})"
    "\n\n"
    "event: response.output_text.delta\n"
    R"(data: {"content_index":0,"delta":"Hello","item_id":"msg_b2","logprobs":[],"output_index":0,"sequence_number":4,"type":"response.output_text.delta"})"
    "\n\n"
    "event: response.output_text.delta\n"
    R"(data: {"content_index":0,"delta":" w\u00f6rld","item_id":"msg_b2","logprobs":[],"output_index":0,"sequence_number":5,"type":"response.output_text.delta"})"
    "\n\n"
    "event: response.output_text.delta\n"
    R"(data: {"content_index":0,"delta":"!","item_id":"msg_b2","logprobs":[],"output_index":0,"sequence_number":6,"type":"response.output_text.delta"})"
    "\n\n"
    "event: response.output_text.done\n"
    R"(data: {"content_index":0,"item_id":"msg_b2","logprobs":[],"output_index":0,"sequence_number":7,"text":"Hello w\u00f6rld!","type":"response.output_text.done"})"
    "\n\n"
    "event: response.content_part.done\n"
    R"(data: {"content_index":0,"item_id":"msg_b2","output_index":0,"part":{"annotations":[],"text":"Hello w\u00f6rld!","type":"output_text"},"sequence_number":8,"type":"response.content_part.done"})"
    "\n\n"
    "event: response.output_item.done\n"
    R"(data: {"item":{"id":"msg_b2","content":[{"annotations":[],"text":"Hello w\u00f6rld!","type":"output_text"}],"role":"assistant","status":"completed","type":"message"},"output_index":0,"sequence_number":9,"type":"response.output_item.done"})"
    "\n\n"
    "event: response.completed\n"
    R"(data: {"response":)" VLLM_RESPONSE_HEAD R"("output":[{"id":"msg_b2","content":[{"annotations":[],"text":"Hello w\u00f6rld!","type":"output_text"}],"role":"assistant","status":"completed","type":"message"}],"status":"incomplete","usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":8},"output_tokens":4,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":16}},"sequence_number":10,"type":"response.completed"})"
    "\n\n";

// OpenAI's order ("type" first) from a reasoning model: a reasoning summary
// delta, two output_text deltas, and response.incomplete (max_output_tokens
// reached) as the last event, with the usage.
inline const std::string openai_responses_incomplete =
    "event: response.created\n"
    R"(data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_67c","object":"response","created_at":1741290958,"status":"in_progress","error":null,"incomplete_details":null,"model":"o4-mini","output":[],"usage":null}})"
    "\n\n"
    "event: response.output_item.added\n"
    R"(data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"rs_1","type":"reasoning","summary":[]}})"
    "\n\n"
    "event: response.reasoning_summary_text.delta\n"
    R"(data: {"type":"response.reasoning_summary_text.delta","sequence_number":2,"item_id":"rs_1","output_index":0,"summary_index":0,"delta":"Thinking"})"
    "\n\n"
    "event: response.output_text.delta\n"
    R"(data: {"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":1,"content_index":0,"delta":"Hi"})"
    "\n\n"
    "event: response.output_text.delta\n"
    R"(data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":1,"content_index":0,"delta":" there"})"
    "\n\n"
    "event: response.incomplete\n"
    R"(data: {"type":"response.incomplete","sequence_number":5,"response":{"id":"resp_67c","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"usage":{"input_tokens":20,"input_tokens_details":{"cached_tokens":0},"output_tokens":16,"output_tokens_details":{"reasoning_tokens":12},"total_tokens":36}}})"
    "\n\n";

// A Responses stream the engine gave up on: response.failed with its error.
inline const std::string responses_failed =
    "event: response.output_text.delta\n"
    R"(data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Par"})"
    "\n\n"
    "event: response.failed\n"
    R"(data: {"type":"response.failed","sequence_number":5,"response":{"id":"resp_9","object":"response","status":"failed","error":{"code":"server_error","message":"The engine died unexpectedly."},"output":[],"usage":null}})"
    "\n\n";

// OpenAI's stream-level error event.
inline const std::string responses_error_event =
    "event: response.output_text.delta\n"
    R"(data: {"type":"response.output_text.delta","sequence_number":1,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"Hi"})"
    "\n\n"
    "event: error\n"
    R"(data: {"type":"error","code":"rate_limit_exceeded","message":"Too many tokens","param":null,"sequence_number":2})"
    "\n\n";

inline const std::string content_chunk = "data: " SIM_HEAD R"([{"index":0,"delta":{"content":"ok"},"finish_reason":null}]})"
                                  "\n\n";

}  // namespace recorded
