#pragma once
// The added tokens of a tokenizer.json (special or not): found in the raw
// text before anything else, the longest at each position, leftmost first, as
// transformers.js does; lstrip and rstrip take JavaScript whitespace off the
// text beside one, single_word wants no word character beside it. Pure.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace openloop::hf {

struct added_token {
    std::string content;
    std::int32_t id = 0;
    bool special = false;
    bool lstrip = false;
    bool rstrip = false;
    bool single_word = false;
};

// A stretch of text: an added token (token >= 0, its index) or plain text.
struct section {
    std::size_t start = 0;
    std::size_t end = 0;
    int token = -1;
};

class added_tokens {
public:
    void add(added_token t);
    const std::vector<added_token>& all() const { return tokens_; }
    bool empty() const { return tokens_.empty(); }

    // The sections of text in order; plain sections may be empty (stripped).
    void split(std::string_view text, std::vector<section>& out) const;

private:
    // The longest token matching at pos (its index), or -1.
    int longest_at(std::string_view text, std::size_t pos) const;

    std::vector<added_token> tokens_;
    // A byte trie: (node << 8 | byte) -> child; node 0 is the root.
    std::unordered_map<std::uint64_t, std::uint32_t> children_;
    std::vector<int> ends_{-1};  // per node: the token ending there, or -1
    bool first_byte_[256] = {};
};

}  // namespace openloop::hf
