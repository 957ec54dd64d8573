#include "openloop/load/tokens.hpp"

#include "openloop/base/random.hpp"

#include <array>

namespace openloop {
namespace {

constexpr std::array<std::string_view, 64> words = {
    "the",    "of",     "and",    "model",  "token",  "server", "cache",  "batch",
    "query",  "answer", "time",   "stream", "value",  "rate",   "load",   "queue",
    "a",      "to",     "in",     "is",     "that",   "for",    "it",     "with",
    "as",     "on",     "be",     "at",     "by",     "this",   "from",   "or",
    "system", "data",   "write",  "read",   "first",  "last",   "next",   "open",
    "loop",   "step",   "fast",   "slow",   "small",  "large",  "inside", "outside",
    "river",  "stone",  "cloud",  "light",  "paper",  "green",  "north",  "south",
    "number", "signal", "memory", "block",  "prefix", "window", "engine", "sample",
};

bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

template <class F>
void for_each_word(std::string_view text, F&& f) {
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        std::size_t j = i;
        while (j < text.size() && !is_space(text[j])) ++j;
        if (j > i) f(text.substr(i, j - i));
        i = j;
    }
}

}  // namespace

int count_text_tokens(std::string_view text) {
    int n = 0;
    for_each_word(text, [&](std::string_view) { ++n; });
    return n;
}

std::string_view vocab_word(std::uint64_t i) { return words[i % words.size()]; }

void append_words(std::string& out, int n, std::uint64_t seed) {
    std::uint64_t state = seed;
    for (int k = 0; k < n; ++k) {
        if (!out.empty()) out.push_back(' ');
        state = mix64(state);
        out.append(vocab_word(state >> 58));
    }
}

std::vector<std::uint64_t> text_token_ids(std::string_view text) {
    std::vector<std::uint64_t> ids;
    for_each_word(text, [&](std::string_view w) {
        std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
        for (unsigned char c : w) h = (h ^ c) * 0x100000001b3ULL;
        ids.push_back(h);
    });
    return ids;
}

std::vector<std::uint64_t> block_hashes(std::span<const std::uint64_t> tokens, int block_size) {
    std::vector<std::uint64_t> out;
    if (block_size <= 0) return out;
    std::uint64_t h = 0;
    for (std::size_t k = 0; k + block_size <= tokens.size(); k += block_size) {
        for (int j = 0; j < block_size; ++j) h = mix64(h ^ tokens[k + j]);
        out.push_back(h);
    }
    return out;
}

}  // namespace openloop
