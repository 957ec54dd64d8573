#pragma once
// The server's own count of a prompt, from the usage every OpenAI-compatible
// server reports: a request of max_tokens 1 whose answer's
// usage.prompt_tokens is the prompt's length, chat template included. For
// servers with no tokenize endpoint (hosted APIs, gateways, TensorRT-LLM's
// front end). Pure: the caller sends the call, before the run.

#include "openloop/load/tokenize_endpoint.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// A non-streaming request for one token whose prompt is text: one user
// message (after the system prompt, when one is given) on
// {api_base}/chat/completions when chat, else a completion prompt on
// {api_base}/completions. extra's fields (--extra-body) are added where the
// probe sets none itself, so a template switch such as chat_template_kwargs
// counts as it will in the run.
http_call usage_probe_call(std::string_view api_base, std::string_view model, std::string_view text, bool chat,
                           const boost::json::object& extra, std::string_view system_prompt = {});

// usage.prompt_tokens of an answer, or why there is none (the status, the
// server's error message cut short, or what the body lacks).
struct usage_answer {
    std::optional<int> prompt_tokens;
    std::string problem;
};
usage_answer read_usage_answer(int status, std::string_view body);

}  // namespace openloop
