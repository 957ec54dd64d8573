#pragma once
// The one tokenizer openloop and its simulator agree on: a token is a
// whitespace-separated word. Synthetic prompts are built from these words, so
// a prompt of N words is N prompt tokens to the simulator, and every output
// token the simulator streams is one word with a leading space.

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// Number of whitespace-separated words in text.
int count_text_tokens(std::string_view text);

// A fixed, JSON-safe vocabulary word (ASCII letters only) for index i.
std::string_view vocab_word(std::uint64_t i);

// Appends n words to out, space-separated, chosen deterministically from seed.
void append_words(std::string& out, int n, std::uint64_t seed);

// A stable id per word of text (a hash of its bytes), in order.
std::vector<std::uint64_t> text_token_ids(std::string_view text);

// Chained hashes of each full block of block_size tokens: block k's hash
// covers tokens [0, (k+1)*block_size), so equal hashes mean equal prefixes.
std::vector<std::uint64_t> block_hashes(std::span<const std::uint64_t> tokens, int block_size);

}  // namespace openloop
