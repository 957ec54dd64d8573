#pragma once
// How the simulator turns a request's prompt into token ids. `words` is
// tokens.hpp's one word = one token, which openloop's synthetic prompts are
// built for, so both sides agree exactly. `subword` counts the way a real
// server does, so a client's token accounting meets counts it cannot get by
// counting words: a word is 1-3 tokens by its length, a text prompt gets a BOS
// token, and a chat prompt gets its template's role headers and end-of-turn
// tokens. Pure functions: no sockets, no clocks.

#include "openloop/tokenize/local_tokenizer.hpp"

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

struct media_reader;

enum class sim_tokenizer_kind { words, subword, local };

// local: a real model's tokenizer (hf:PATH, tiktoken:FILE) counts the text,
// and the template around it is subword's.
struct sim_tokenizer {
    sim_tokenizer(sim_tokenizer_kind k = sim_tokenizer_kind::words, std::shared_ptr<const local_tokenizer> l = {})  // NOLINT: a kind is a tokenizer
        : kind(k), local(std::move(l)) {}
    sim_tokenizer_kind kind;
    std::shared_ptr<const local_tokenizer> local;
};

// The tokenizer named NAME (as in --tokenizer NAME): words, subword, hf:PATH
// or tiktoken:FILE; nullopt when unknown. Throws what loading a file throws.
std::optional<sim_tokenizer> sim_tokenizer_from_name(std::string_view name);

// Template tokens under subword (words adds none). Llama-3-like: every chat
// prompt starts with BOS; a message is a role header (start, role, end) before
// its content and an end-of-turn token after it; the generation prompt is the
// assistant's header.
inline constexpr int sim_bos_tokens = 1;
inline constexpr int sim_message_tokens = 4;
inline constexpr int sim_generation_prompt_tokens = 3;

// Ids below sim_vocab_size, as in a Llama-2-sized vocabulary; subword text
// pieces lie at or above sim_first_text_id, special tokens below it.
inline constexpr std::uint64_t sim_vocab_size = 32000;
inline constexpr std::uint64_t sim_first_text_id = 256;

// Subword tokens of one word: one per three bytes, at most three ("the" 1,
// "model" 2, "outside" 3).
int subword_tokens(std::string_view word);

// The ids of text, in order, without special tokens. Under words: tokens.hpp's
// text_token_ids (64-bit word hashes). Under subword: piece k of word w has id
// hash(w, k) in the text range, so equal prefixes give equal ids and the
// prefix cache sees them.
std::vector<std::uint64_t> sim_token_ids(const sim_tokenizer& tok, std::string_view text);

// The prompt ids of a request body: chat "messages" (content a string, null,
// or a list of parts whose "text" counts; an assistant's tool_calls by their
// names and arguments; a tool message needs its tool_call_id) laid out by the
// chat template after the "tools" (each one's JSON) and a response_format's
// json_schema, which come first as a shared prefix; or a
// completion "prompt" (a string, a list of one string, or a list of token ids
// used as given, nothing added). add_special_tokens (default: false for chat,
// true for completions, as in vLLM) adds the tokenizer's BOS before a text
// prompt, and for chat before the template's own BOS, doubling it as vLLM
// does; add_generation_prompt (default true) ends a chat prompt with the
// assistant's header. With media, a chat content part that is not text is
// read by it (media_parts: images and audio become placeholder ids where they
// stand); without, it is passed over. False with err when the prompt is malformed,
// or when a local tokenizer refuses it (its regex gave up, its normalizer
// multiplied the text: err names the file and the step or pattern).
bool request_prompt_ids(const sim_tokenizer& tok, const boost::json::object& body, bool chat,
                        std::vector<std::uint64_t>& ids, std::string& err, media_reader* media = nullptr);

// The ids POST /tokenize asks for, vLLM's two shapes: {"prompt": str} counted
// as a completion with that prompt, {"messages": [...]} as a chat request with
// those messages, each with the same defaults, so count == usage.prompt_tokens.
bool tokenize_request_ids(const sim_tokenizer& tok, const boost::json::object& body, std::vector<std::uint64_t>& ids,
                          std::string& err, media_reader* media = nullptr);

// An id as /tokenize shows it: a small non-negative integer (words ids are
// 64-bit hashes, folded into the vocabulary; subword ids are already in it).
constexpr std::uint64_t sim_vocab_id(std::uint64_t id) { return id % sim_vocab_size; }

}  // namespace openloop
