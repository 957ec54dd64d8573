#pragma once
// The UTF-8 the local tokenizers need: reading code points, writing them, and
// making text valid the way a JavaScript string read from bytes is (each
// invalid sequence, as its maximal subpart, becomes U+FFFD), so that
// tokenizing invalid input matches the reference implementations. Pure.

#include <cstddef>
#include <string>
#include <string_view>

namespace openloop::utf8 {

// The length of the valid sequence starting at text[pos], or 0 when it is
// not valid there.
std::size_t sequence_length(std::string_view text, std::size_t pos);
// The code point of the valid sequence at text[pos] (see sequence_length).
char32_t decode(std::string_view text, std::size_t pos, std::size_t length);
void append(std::string& out, char32_t cp);
bool valid(std::string_view text);
// text with every maximal invalid subpart replaced by U+FFFD.
std::string sanitize(std::string_view text);

}  // namespace openloop::utf8
