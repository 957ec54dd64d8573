#include "openloop/media/base64.hpp"

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

unsigned byte_at(std::string_view b, std::size_t i) { return static_cast<unsigned char>(b[i]); }

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

void append_base64(std::string& out, std::string_view bytes) {
    static constexpr char alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const std::size_t start = out.size();
    out.resize(start + (bytes.size() + 2) / 3 * 4);
    char* o = out.data() + start;
    std::size_t i = 0;
    for (; i + 3 <= bytes.size(); i += 3) {
        const std::uint32_t v = byte_at(bytes, i) << 16 | byte_at(bytes, i + 1) << 8 | byte_at(bytes, i + 2);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = alphabet[(v >> 6) & 63];
        *o++ = alphabet[v & 63];
    }
    if (i < bytes.size()) {
        const bool two = i + 1 < bytes.size();
        const std::uint32_t v = byte_at(bytes, i) << 16 | (two ? byte_at(bytes, i + 1) << 8 : 0);
        *o++ = alphabet[v >> 18];
        *o++ = alphabet[(v >> 12) & 63];
        *o++ = two ? alphabet[(v >> 6) & 63] : '=';
        *o++ = '=';
    }
}

std::string data_url(std::string_view mime, std::string_view bytes) {
    std::string out;
    out.reserve(mime.size() + 13 + (bytes.size() + 2) / 3 * 4);
    out.append("data:").append(mime).append(";base64,");
    append_base64(out, bytes);
    return out;
}

}  // namespace openloop
