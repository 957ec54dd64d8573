#pragma once
// A server's own tokenizer, through its tokenize endpoint: the request bodies
// and answers of each dialect, so calibration can count prompts exactly as
// the server will. Pure: the caller sends the calls (before the run, never on
// the send path).
//   vllm      vLLM and SGLang: POST /tokenize {"model", "prompt"} or
//             {"model", "messages", "add_generation_prompt"} -> {"count", "tokens"}
//   llamacpp  llama.cpp's llama-server: POST /apply-template {"messages"} ->
//             {"prompt"}, then POST /tokenize {"content", "add_special",
//             "parse_special"} -> {"tokens"}
//   tgi       Hugging Face TGI: POST /tokenize {"inputs"} -> [tokens], and
//             POST /chat_tokenize {"messages"} -> {"tokenize_response": [...]}

#include <boost/json/array.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

enum class tokenize_dialect { vllm, llamacpp, tgi };
std::string_view dialect_name(tokenize_dialect d);
inline constexpr tokenize_dialect all_dialects[] = {tokenize_dialect::vllm, tokenize_dialect::llamacpp,
                                                    tokenize_dialect::tgi};

struct http_call {
    std::string path;
    std::string body;  // JSON
};

// Where the server's own endpoints live for a target base path: the OpenAI
// API sits under /v1, the tokenize endpoints beside it ("/v1" -> "", "/x/v1" -> "/x").
std::string server_root(std::string_view base_path);

// The first call that counts text (as one user message when chat, after a
// system message when system_prompt is not empty).
http_call tokenize_call(tokenize_dialect d, std::string_view root, std::string_view model, std::string_view text, bool chat,
                        std::string_view system_prompt = {});

// A chat request's messages for a prompt: the system prompt's message (when
// not empty), then text as the user's.
boost::json::array chat_messages(std::string_view system_prompt, std::string_view text);

// What an answer to a call says: the count (and the ids where listed), or
// (llama.cpp chat) the next call to make, or neither when the answer is not
// this dialect's.
// ids are the token ids, when the answer lists them.
struct tokenize_answer {
    std::optional<int> count;
    std::optional<http_call> next;
    std::vector<std::int64_t> ids;
};
tokenize_answer read_tokenize_answer(tokenize_dialect d, std::string_view root, const http_call& call, int status,
                                     std::string_view body, bool chat);

}  // namespace openloop
