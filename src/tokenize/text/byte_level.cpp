#include "openloop/tokenize/text/byte_level.hpp"

#include "openloop/tokenize/text/utf8.hpp"

#include <array>

namespace openloop::byte_level {

namespace {

bool printable(unsigned b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174); }

struct tables {
    std::array<std::string, 256> chars;
    std::array<int, 256 + 68> byte_of;  // code point -> byte, -1 for none
    tables() {
        byte_of.fill(-1);
        unsigned next = 256;
        for (unsigned b = 0; b < 256; ++b) {
            const char32_t cp = printable(b) ? b : next++;
            utf8::append(chars[b], cp);
            byte_of[cp] = int(b);
        }
    }
};

const tables& the_tables() {
    static const tables t;
    return t;
}

}  // namespace

std::string_view char_of(unsigned char b) { return the_tables().chars[b]; }

void encode(std::string_view bytes, std::string& out) {
    const tables& t = the_tables();
    for (const char c : bytes) out += t.chars[static_cast<unsigned char>(c)];
}

bool decode(std::string_view text, std::string& out) {
    const tables& t = the_tables();
    for (std::size_t pos = 0; pos < text.size();) {
        const std::size_t n = utf8::sequence_length(text, pos);
        if (n == 0) return false;
        const char32_t cp = utf8::decode(text, pos, n);
        if (cp >= t.byte_of.size() || t.byte_of[cp] < 0) return false;
        out += char(t.byte_of[cp]);
        pos += n;
    }
    return true;
}

}  // namespace openloop::byte_level
