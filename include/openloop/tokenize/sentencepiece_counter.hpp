#pragma once
// A local SentencePiece model as a token counter, for --tokenizer
// sentencepiece:FILE when the server offers no tokenize endpoint. It reads the
// tokenizer.model files of the SentencePiece model families (Llama 1 and 2,
// Mistral and Mixtral, Gemma, T5, Yi, Baichuan); not the byte-level BPE
// tokenizer.json of Llama 3, Qwen or GPT models. It counts the content and the
// BOS token the model adds, not a chat template.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// False when openloop was built without Debian's libsentencepiece-dev.
bool sentencepiece_available();

// The count of a text's tokens (its BOS included), nullopt when the model
// cannot encode it: load/prompt_builder.hpp's token_counter. Throws
// std::runtime_error naming the file when it cannot be loaded (or SentencePiece
// is not available).
std::function<std::optional<int>(std::string_view text)> sentencepiece_counter(const std::string& model_file);

}  // namespace openloop
