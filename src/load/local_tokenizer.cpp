#include "openloop/load/local_tokenizer.hpp"

#include "openloop/load/tokenizer.hpp"

#include <filesystem>

namespace openloop {

namespace {

bool is_tiktoken_file(const std::string& path) { return std::filesystem::path(path).extension() == ".tiktoken"; }

}  // namespace

std::string local_tokenizer_file(const tokenizer_choice& choice, const std::string& model) {
    using kind = tokenizer_choice::kind;
    switch (choice.type) {
    case kind::hf: return hf_tokenizer_file(choice.model_file);
    case kind::tiktoken: return choice.model_file;
    case kind::automatic: {
        const std::string& file = choice.model_file;
        if (!file.empty()) return is_tiktoken_file(file) ? file : hf_tokenizer_file(file);
        std::error_code ec;
        const auto in_model = std::filesystem::path(model) / "tokenizer.json";
        return !model.empty() && std::filesystem::is_regular_file(in_model, ec) ? in_model.string() : "";
    }
    default: return "";
    }
}

std::shared_ptr<const local_tokenizer> load_local_tokenizer(const tokenizer_choice& choice, const std::string& model,
                                                            const std::stop_token& stop) {
    const std::string file = local_tokenizer_file(choice, model);
    if (file.empty()) return nullptr;
    using kind = tokenizer_choice::kind;
    if (choice.type == kind::tiktoken || (choice.type == kind::automatic && is_tiktoken_file(file)))
        return load_tiktoken(file, stop);
    return load_hf_tokenizer(file, stop);
}

}  // namespace openloop
