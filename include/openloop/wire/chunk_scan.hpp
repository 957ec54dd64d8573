#pragma once
// The common shapes of an OpenAI streaming chunk or Responses event, decoded
// in one pass over the bytes without building a JSON value: what the decoder needs is a few
// counts and flags, and a full parse into a DOM was a fifth of the io
// thread's time on short streams. The scan validates the JSON it walks and
// gives up (nullopt) on anything it does not decide exactly as the full
// decoder would: error objects and error events, escaped keys, a key met twice, lone
// surrogates, usage figures that are not plain integers, choices that are
// not an array of objects, deep nesting, and malformed text. Every answer
// it gives equals chunk_decoder's full decode (test/fuzz/chunk_fuzz.cpp
// checks that on every input). Pure.

#include "openloop/wire/chunk.hpp"

#include <optional>
#include <string_view>

namespace openloop {

// payload: one SSE event's data, trimmed, not "[DONE]".
std::optional<chunk_info> scan_chunk(std::string_view payload);

}  // namespace openloop
