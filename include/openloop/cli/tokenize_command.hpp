#pragma once
// `openloop tokenize --tokenizer hf:PATH|tiktoken:FILE [TEXT]`: the ids a
// local tokenizer gives a text, or (--jsonl) each line's ids and their decoded
// text, the shape the reference harness compares.

#include <string>
#include <vector>

namespace openloop {

int tokenize_main(const std::vector<std::string>& args);

}  // namespace openloop
