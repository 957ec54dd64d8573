#pragma once
// How a length in tokens becomes a prompt. A server counts tokens with its
// own tokenizer and chat template, so "512 words" is rarely 512 prompt
// tokens (SentencePiece plus a chat template made it 1.22x on llama.cpp).
// The modes:
//   words   one vocabulary word per token: exact only for the simulator
//   costs   words chosen by their measured token cost, so that the server's
//           count equals the intended length: the costs come from the
//           server's tokenize endpoint (or a local SentencePiece model)
//   ids     token ids, exact by construction (/v1/completions only)
// Pure logic: the counts come in through a function, so calibration is
// tested without a socket.

#include "openloop/load/tokens.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

namespace openloop {

inline constexpr std::size_t vocab_size_words = 64;  // vocab_word(i) for i below this

// Builds prompt content of an exact token length, deterministically from a seed.
class prompt_builder {
public:
    enum class kind { words, costs, ids };

    prompt_builder() = default;  // words
    // Token costs of vocab_word(i): first[i] as the first word of the content
    // (it carries what the server adds around every prompt: BOS, the chat
    // template), inner[i] after a space. label says where they came from.
    static prompt_builder with_costs(std::array<int, vocab_size_words> first, std::array<int, vocab_size_words> inner,
                                     std::string label);
    // Token ids drawn from [lo, hi): clear of the special tokens at either end of a vocabulary.
    static prompt_builder with_ids(std::int64_t vocab_size);

    // The same builder, told that `tokens` of what first[] counts come after
    // the content (a chat template's end of turn and generation prompt).
    prompt_builder with_trailing(int tokens) const;
    // The same builder, told that `tokens` of what first[] counts are a system
    // prompt's (--system-prompt): a conversation carries it once, so a
    // session's later message does not add them again.
    prompt_builder with_system(int tokens) const;

    kind type() const { return kind_; }
    const std::string& label() const { return label_; }
    int trailing() const { return trailing_; }
    int system_tokens() const { return system_; }
    // The fewest tokens a prompt can be: its cheapest first word with all the
    // server adds around it (1 for words and ids). A shorter length asked is
    // written as that one word, and counted inexact.
    int floor() const;
    const std::array<int, vocab_size_words>& first() const { return first_; }
    const std::array<int, vocab_size_words>& inner() const { return inner_; }

    // Appends tokens' worth of content to text (words and costs modes) or to
    // ids (ids mode). Under costs, text's emptiness says whether the next word
    // is the first; the result is exact unless tokens is below the cheapest
    // first word (one word is still written). Returns the tokens it added as
    // this builder counts them.
    int append(std::string& text, std::vector<std::int32_t>& ids, int tokens, std::uint64_t seed) const;

    // The cache form: {"label", "first": [...], "inner": [...]}; from_json throws on a bad shape.
    boost::json::object to_json() const;
    static prompt_builder from_json(const boost::json::object& o);

private:
    kind kind_ = kind::words;
    std::array<int, vocab_size_words> first_{};
    std::array<int, vocab_size_words> inner_{};
    std::int64_t id_lo_ = 0, id_hi_ = 0;
    int trailing_ = 0;
    int system_ = 0;
    std::string label_ = "words";
};

// A prompt of `total` tokens written as consecutive segments (a trace's hash
// blocks, a shared prefix) so that each segment starts at the same token
// position of the server's count in every prompt sharing the segments before
// it, which is what a prefix cache needs: the server's tokens before the
// content (BOS, a role header) sit in the first segment, those after it (end
// of turn, the assistant's header) are taken from the last.
class prompt_layout {
public:
    prompt_layout(const prompt_builder& b, std::string& text, std::vector<std::int32_t>& ids, int total);
    // Up to `tokens` more tokens from seed, fewer once the content is complete.
    void segment(int tokens, std::uint64_t seed);
    // The rest of the prompt from seed (at least one word in all).
    void rest(std::uint64_t seed);

private:
    const prompt_builder& b_;
    std::string& text_;
    std::vector<std::int32_t>& ids_;
    int total_;
    int content_end_;  // where the trailing tokens begin
    int at_ = 0;       // server tokens laid out so far
    bool started_ = false;
};

// The token count a server gives to a request whose content is text (for
// chat: one user message), or nullopt when it cannot say.
using token_counter = std::function<std::optional<int>(std::string_view text)>;

// Measures every vocabulary word's cost through count: 1 + 2 x 64 calls.
// Throws std::runtime_error naming the word when a count is missing or absurd.
prompt_builder calibrate(const token_counter& count, std::string label);

// Builds `samples` prompts of assorted lengths with b and counts them
// through count: how many the server counts exactly as intended.
struct calibration_check {
    int samples = 0;
    int exact = 0;
    std::string first_miss;  // "asked 200, server counted 201", empty when none
};
// Lengths run from 8 (or b's floor, when higher) to about `longest` tokens above that.
calibration_check verify(const prompt_builder& b, const token_counter& count, int samples, std::uint64_t seed,
                         int longest = 2000);

}  // namespace openloop
