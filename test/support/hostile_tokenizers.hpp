#pragma once
// Hostile tokenizer.json files, made by the tests that give them to openloop:
// normalizers that multiply the text, a Split regex that backtracks
// catastrophically.

#include <fstream>
#include <string>

namespace hostile {

// Letters and the space, one token each; no merges.
inline std::string letters_model() {
    std::string vocab;
    for (char c = 'a'; c <= 'z'; ++c) vocab += "\"" + std::string(1, c) + "\": " + std::to_string(c - 'a') + ", ";
    return R"("model": {"type": "BPE", "vocab": {)" + vocab + R"(" ": 26}, "merges": []})";
}

// Eight Replace steps, each a -> ten a's: one "a" would become 10^8 of them.
inline std::string multiplying_normalizer() {
    std::string steps;
    for (int i = 0; i < 8; ++i)
        steps += std::string(i ? ", " : "") + R"({"type": "Replace", "pattern": {"String": "a"}, "content": "aaaaaaaaaa"})";
    return R"({"normalizer": {"type": "Sequence", "normalizers": [)" + steps + "]}, " + letters_model() + "}";
}

// PCRE2 tries 2^n ways to split a run of n a's before it can say that the run does not end the text.
inline std::string backtracking_split() {
    return R"({"pre_tokenizer": {"type": "Split", "pattern": {"Regex": "(a+)+$"}, "behavior": "Isolated"}, )" +
           letters_model() + "}";
}

inline std::string write_file(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
    return path;
}

}  // namespace hostile
