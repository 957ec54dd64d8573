#pragma once
// Before a run: choose how lengths in tokens become prompts (--tokenizer) and,
// for the server's tokenizer, find its tokenize endpoint, measure the token
// cost of every vocabulary word (cached per model and vocabulary), and check
// a few sample prompts against the server's count. Socket-free: HTTP calls
// go through the functions the caller gives, so it is tested with fakes.

#include "openloop/load/prompt_builder.hpp"
#include "openloop/load/tokenize_endpoint.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

struct calibration_request {
    tokenizer_choice choice;
    bool chat = true;            // prompts are one user message of a chat request
    std::string model;
    std::string root;            // server_root() of the target
    std::int64_t vocab_size = 0; // ids: 0 asks GET /v1/models for it
    std::string models_path = "/v1/models";
    std::string cache_dir;       // empty: no cache
    int verify_samples = 8;
    std::string api_base = "/v1";         // where usage probes go: {api_base}/chat/completions
    boost::json::object extra_body;       // --extra-body, sent with usage probes too
    // --system-prompt (chat; empty: none): a system message before every prompt's
    // user message, probes and tokenize calls included, so its tokens count in
    // what the server adds around the content, as the template's do.
    std::string system_prompt;
    // hf:, tiktoken:, or auto's local file, loaded by the caller (off the io thread).
    std::shared_ptr<const local_tokenizer> local;
    // A line for stderr before calls the user should know of (usage's probe requests).
    std::function<void(const std::string&)> say = [](const std::string&) {};
};

struct calibration_result {
    prompt_builder builder;
    std::string label;            // for the summary, e.g. "server (vllm /tokenize)"
    calibration_check check;      // samples counted by the server (server mode)
    bool from_cache = false;
    std::string note;             // a line for stderr, empty when nothing to say
};

using http_post_fn = std::function<std::pair<int, std::string>(const http_call&)>;  // throws when no answer
using http_get_fn = std::function<std::string(const std::string& path)>;           // throws unless 200

// Throws std::runtime_error with what to do instead when the choice cannot
// be honoured (no tokenize endpoint under --tokenizer server, ids on chat, ...).
// auto tries, in order: the server's tokenize endpoint, r.local, the
// server's usage counts, and words with a warning. A result whose sample
// check still missed says so in its label ("inexact: ...") and note.
calibration_result calibrate_tokenizer(const calibration_request& request, const http_post_fn& post,
                                       const http_get_fn& get);

// b told its system prompt's share (r.system_prompt; b as it is without one):
// its first word's cost less bare's count of the same word, bare counting
// as the server does without the system prompt.
prompt_builder with_system_share(const prompt_builder& b, const calibration_request& r, const token_counter& bare);

// count with system_tokens more on every text: a system prompt counted apart,
// where no template places it (a local count).
token_counter with_system_tokens(token_counter count, int system_tokens);

// The server's tokens after a prompt's content (a chat template's end of
// turn and generation prompt), from the ids of two prompts whose one-word
// contents differ: the length of their common tail, at most
// max_trailing_tokens; 0 when either list is empty or both are equal.
inline constexpr int max_trailing_tokens = 32;
int trailing_tokens(const std::vector<std::int64_t>& a, const std::vector<std::int64_t>& b);

// The cache directory: $OPENLOOP_CACHE_DIR, else $XDG_CACHE_HOME/openloop, else ~/.cache/openloop.
std::string default_cache_dir();

}  // namespace openloop
