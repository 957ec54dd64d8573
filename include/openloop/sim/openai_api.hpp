#pragma once
// The simulator's side of the OpenAI API, as pure functions of request bodies:
// what a completion request asks for, the error bodies vLLM sends, the
// /tokenize and /v1/models answers. No sockets, no clocks.

#include "openloop/sim/config.hpp"
#include "openloop/sim/media_parts.hpp"

#include <boost/beast/http/status.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

// What a chat request says about tools and thinking (answer_plan reads it).
enum class tool_choice_kind { auto_, none, required, named };
struct tool_request {
    std::vector<std::string> names;  // tools[*].function.name, in order
    tool_choice_kind choice = tool_choice_kind::auto_;
    std::string forced;    // the function a named tool_choice calls
    int tool_results = 0;  // messages of role tool after the last user message
    bool thinking = true;  // false: chat_template_kwargs' enable_thinking or thinking is false
};

// A request the simulator accepted, in the terms the engine and the writer need.
struct completion_request {
    bool chat = false;
    bool responses = false;  // POST /v1/responses: a chat prompt, answered in the Responses API's shape
    bool stream = false;
    bool include_usage = false;
    bool continuous_usage = false;
    int prompt_tokens = 0;
    std::vector<std::uint64_t> token_ids;
    int max_tokens = 0;
    int min_tokens = 0;
    bool ignore_eos = false;
    double temperature = 1.0;
    std::optional<std::int64_t> seed;
    tool_request tools;  // chat only
    media_count media;   // chat only: its images and audio, whose tokens prompt_tokens counts
    int adapter = -1;    // the LoRA adapter its "model" names (an index into lora_modules); -1: the base
    double audio_seconds = 0;  // a transcription's clip, as its usage reports it
};

struct api_error {
    boost::beast::http::status status = boost::beast::http::status::bad_request;
    std::string type = "BadRequestError";
    std::string message;
};

// A 400 that says message, as vLLM's BadRequestError does.
inline api_error bad_request(std::string message) { return {boost::beast::http::status::bad_request, "BadRequestError", std::move(message)}; }

// {"error": {"message", "type", "param", "code"}}, as vLLM answers.
std::string error_body(const api_error& e);

// The HTTP error an injected fault answers with (429, 500 or 503); none for other faults.
std::optional<api_error> injected_error(fault f);

// r := the completion request in body; an error when the body is not one the
// served model would accept (vLLM's messages and defaults).
std::optional<api_error> parse_completion(std::string_view body, bool chat, const sim_config& cfg,
                                          completion_request& r);

// r := the Responses request in body: "input" (a string, or a list of
// messages) after "instructions", counted as a chat request's messages;
// max_output_tokens, sampling, ignore_eos and min_tokens as for chat.
std::optional<api_error> parse_responses(std::string_view body, const sim_config& cfg, completion_request& r);

// What a non-streamed chat message holds beside its content.
struct chat_extras {
    // The thinking text, as message.reasoning (or reasoning_content), or between <think> tags
    // before the content; empty: none.
    std::string_view reasoning;
    reasoning_shape shape = reasoning_shape::reasoning;
    // usage.completion_tokens_details.reasoning_tokens (the current shape of a thinking model)
    bool reasoning_usage = false;
    int reasoning_tokens = 0;
    // Tool calls: message.tool_calls, content null (or the thinking between its tags).
    struct call {
        std::string_view id, name, arguments;
    };
    std::vector<call> calls;
};

// A non-streamed completion's body, as vLLM answers it: one choice (a chat
// message or a completion text) and its usage.
std::string completion_response(bool chat, const std::string& id, std::int64_t created_unix, const std::string& model,
                                const std::string& text, std::string_view finish_reason, int prompt_tokens,
                                int completion_tokens, int cached_tokens, const chat_extras& extras = {});

// POST /v1/embeddings: "input" is a string, a list of token ids, or a list of
// either (a batch); every input is counted as a completion prompt would be
// (under subword, with its BOS).
struct embedding_request {
    std::vector<std::uint64_t> token_ids;  // the inputs' ids, one input after another
    int inputs = 0;
    int prompt_tokens = 0;
};

// Values in each embedding the simulator answers with: small, so a body stays a few KiB.
inline constexpr int sim_embedding_dims = 32;

// r := the embeddings request in body; an error in vLLM's shape when the
// input is missing, empty, of the wrong type or longer than the context.
std::optional<api_error> parse_embedding(std::string_view body, const sim_config& cfg, embedding_request& r);

// {"object":"list","data":[{"object":"embedding","index":i,"embedding":[...]}],"model","usage"}:
// one unit vector per input, a function of its ids; usage counts the prompt tokens only.
std::string embedding_response(const std::string& model, std::int64_t created_unix, const embedding_request& r);

// POST /tokenize in vLLM's shape: {"prompt": str} or {"messages": [...]},
// counted as the completion or chat request with the same fields would be.
std::pair<boost::beast::http::status, std::string> tokenize_response(std::string_view body, const sim_config& cfg);

// GET /v1/models: the served model, then its LoRA adapters (vLLM's "parent" names the base).
std::string models_response(const sim_config& cfg, std::int64_t created_unix);

// Output length: exactly max_tokens with ignore_eos; otherwise a "natural"
// length (lognormal, median 200 tokens) at which the model would emit EOS,
// drawn from h, the request's own seed, so it is reproducible.
int output_length(const completion_request& r, std::uint64_t h);
// The same for an answer after `spent` thinking tokens: the rest of max_tokens
// with ignore_eos; else the natural length within it (at least 1, and what
// min_tokens still asks). 0 when thinking spent all of max_tokens.
int answer_length(const completion_request& r, std::uint64_t h, int spent);

}  // namespace openloop
