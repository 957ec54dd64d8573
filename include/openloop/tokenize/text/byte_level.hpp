#pragma once
// GPT-2's byte-level alphabet: each of the 256 bytes stands as one printable
// character (the bytes that are printable as themselves, the rest as U+0100
// onward), so that a BPE vocabulary of strings covers every byte sequence.
// Used by the ByteLevel pre-tokenizer and decoder. Pure.

#include <string>
#include <string_view>

namespace openloop::byte_level {

// The UTF-8 of the character standing for byte b.
std::string_view char_of(unsigned char b);
// Appends the byte-level form of bytes to out.
void encode(std::string_view bytes, std::string& out);
// Appends the bytes that text's characters stand for; false (out partly
// written) when a character of text stands for no byte.
bool decode(std::string_view text, std::string& out);

}  // namespace openloop::byte_level
