#pragma once
// A stand-in for a server's tokenizer that is not one word per token: a word
// of n letters is ceil(n / 3) tokens, and every request adds `overhead`
// tokens around the content (BOS, a chat template).

#include <string_view>

inline int fake_count(std::string_view text, int overhead) {
    int n = overhead;
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ') ++i;
        std::size_t j = i;
        while (j < text.size() && text[j] != ' ') ++j;
        if (j > i) n += static_cast<int>((j - i + 2) / 3);
        i = j;
    }
    return n;
}
