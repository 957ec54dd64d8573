#pragma once
// Hostile tokenizer.json files, made by the tests that give them to openloop:
// normalizers that multiply the text, a Split regex that backtracks
// catastrophically, a vocabulary big enough that loading it takes seconds.

#include <boost/test/unit_test.hpp>

#include <cstdio>
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

// A BPE vocabulary of n tokens "t0000000" ...: 20 bytes each; a million of them take
// openloop about a second to load.
inline std::string write_big_vocabulary(const std::string& path, int n) {
    std::FILE* f = std::fopen(path.c_str(), "w");
    BOOST_TEST_REQUIRE(f != nullptr);
    std::fputs(R"({"model": {"type": "BPE", "merges": [], "vocab": {)", f);
    for (int i = 0; i < n; ++i) std::fprintf(f, "%s\"t%07d\": %d", i ? ", " : "", i, i);
    std::fputs("}}}\n", f);
    BOOST_TEST_REQUIRE(std::fclose(f) == 0);
    return path;
}

}  // namespace hostile
