#pragma once
// Text with the blanks around it removed: every reader of fields, lines and
// header values trims here, each naming the blanks its format allows.

#include <string_view>

namespace openloop {

inline std::string_view trim(std::string_view s, std::string_view blanks = " \t") {
    const auto first = s.find_first_not_of(blanks);
    if (first == std::string_view::npos) return {};
    return s.substr(first, s.find_last_not_of(blanks) - first + 1);
}

}  // namespace openloop
