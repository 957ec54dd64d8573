#include "openloop/load/local_tokenizer.hpp"

#include "openloop/load/tokenizer.hpp"

#include <filesystem>

namespace openloop {

namespace {

bool is_tiktoken_file(const std::string& path) { return std::filesystem::path(path).extension() == ".tiktoken"; }

}  // namespace

std::shared_ptr<const local_tokenizer> load_local_tokenizer(const tokenizer_choice& choice, const std::string& model) {
    using kind = tokenizer_choice::kind;
    switch (choice.type) {
    case kind::hf: return load_hf_tokenizer(choice.model_file);
    case kind::tiktoken: return load_tiktoken(choice.model_file);
    case kind::automatic: {
        if (!choice.model_file.empty())
            return is_tiktoken_file(choice.model_file) ? std::shared_ptr<const local_tokenizer>(load_tiktoken(choice.model_file))
                                                       : load_hf_tokenizer(choice.model_file);
        std::error_code ec;
        if (!model.empty() && std::filesystem::is_regular_file(std::filesystem::path(model) / "tokenizer.json", ec))
            return load_hf_tokenizer(model);
        return nullptr;
    }
    default: return nullptr;
    }
}

}  // namespace openloop
