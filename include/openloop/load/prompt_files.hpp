#pragma once
// Prompts read from files: --prompts JSONL (one prompt per line) and
// --sharegpt (each conversation's first human turn and the reply after it,
// vLLM's convention). Errors name the file and line.

#include <cstddef>
#include <string>
#include <vector>

namespace openloop {

// A prompt read from a file; max_tokens 0 means "sample output_len".
struct file_item {
    std::string prompt;
    int input_tokens = 0;
    int max_tokens = 0;
};

// JSONL, one object per line: "prompt" (or "text"), optional "max_tokens"
// (or "output_len"). Throws input_error.
std::vector<file_item> load_prompts(const std::string& path);
// ShareGPT JSON; entries without a usable pair are counted in skipped.
std::vector<file_item> load_sharegpt(const std::string& path, std::size_t& skipped);

}  // namespace openloop
