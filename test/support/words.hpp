#pragma once
// Splits generated prompt text (single spaces between words) into views.

#include <string_view>
#include <vector>

inline std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> out;
    while (!s.empty()) {
        const std::size_t sp = s.find(' ');
        out.push_back(s.substr(0, sp));
        if (sp == std::string_view::npos) break;
        s.remove_prefix(sp + 1);
    }
    return out;
}
