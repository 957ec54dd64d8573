#pragma once
// --tokenizer as the user gave it, and the local tokenizer file it names
// (tokenize/local_tokenizer.hpp reads that file).

#include "openloop/tokenize/local_tokenizer.hpp"

#include <memory>
#include <stop_token>
#include <string>
#include <string_view>

namespace openloop {

// --tokenizer as the user gave it.
struct tokenizer_choice {
    enum class kind { automatic, server, ids, words, sentencepiece, hf, tiktoken, usage } type = kind::automatic;
    std::string model_file;  // sentencepiece, hf, tiktoken: the file; auto: --tokenizer-file, when given
};
// "auto", "server", "usage", "ids", "words", "hf:PATH", "tiktoken:FILE" or
// "sentencepiece:FILE"; throws std::invalid_argument.
tokenizer_choice parse_tokenizer(std::string_view text);

// The file of the local tokenizer a --tokenizer choice asks for: hf: and
// tiktoken: their file; auto the --tokenizer-file, else a --model that is a
// local directory holding a tokenizer.json (as vLLM serves a model by its
// path). Empty when none.
std::string local_tokenizer_file(const tokenizer_choice& choice, const std::string& model);
// That tokenizer (a .tiktoken file by its name, else Hugging Face); null when
// none. Throws what the loaders throw.
std::shared_ptr<const local_tokenizer> load_local_tokenizer(const tokenizer_choice& choice, const std::string& model,
                                                            const std::stop_token& stop = {});

}  // namespace openloop
