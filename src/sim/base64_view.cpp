#include "openloop/sim/base64_view.hpp"

#include <cstdint>

namespace openloop {

namespace {

// 0-63 for the alphabet, 64 for '=', 255 for anything else.
constexpr unsigned char sextet(char c) {
    if (c >= 'A' && c <= 'Z') return static_cast<unsigned char>(c - 'A');
    if (c >= 'a' && c <= 'z') return static_cast<unsigned char>(c - 'a' + 26);
    if (c >= '0' && c <= '9') return static_cast<unsigned char>(c - '0' + 52);
    if (c == '+') return 62;
    if (c == '/') return 63;
    if (c == '=') return 64;
    return 255;
}

}  // namespace

std::optional<base64_view> base64_view::make(std::string_view text, std::string& err) {
    if (text.size() % 4 != 0) {
        err = "invalid base64 data: its length, " + std::to_string(text.size()) + ", is not a multiple of 4";
        return std::nullopt;
    }
    std::size_t pad = 0;
    while (pad < 2 && pad < text.size() && text[text.size() - 1 - pad] == '=') ++pad;
    for (std::size_t i = 0; i + pad < text.size(); ++i) {
        if (sextet(text[i]) < 64) continue;
        const auto c = static_cast<unsigned char>(text[i]);
        err = "invalid base64 data: character " +
              (c >= 0x20 && c < 0x7f ? "'" + std::string(1, text[i]) + "'" : "byte " + std::to_string(c)) +
              " at offset " + std::to_string(i);
        return std::nullopt;
    }
    return base64_view(text, text.size() / 4 * 3 - pad);
}

bool base64_view::read(std::size_t offset, unsigned char* out, std::size_t n) const {
    if (offset > size_ || n > size_ - offset) return false;
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t b = offset + k;
        const std::size_t group = b / 3 * 4;
        // The 24 bits of the 4 characters holding byte b ('=' counts as 0).
        std::uint32_t bits = 0;
        for (std::size_t j = 0; j < 4; ++j) bits = bits << 6 | (sextet(text_[group + j]) & 63u);
        out[k] = static_cast<unsigned char>(bits >> (16 - 8 * (b % 3)));
    }
    return true;
}

}  // namespace openloop
