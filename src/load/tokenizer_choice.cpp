#include "openloop/load/tokenizer_choice.hpp"

#include <filesystem>
#include <stdexcept>

namespace openloop {

namespace {

bool is_tiktoken_file(const std::string& path) { return std::filesystem::path(path).extension() == ".tiktoken"; }

}  // namespace

tokenizer_choice parse_tokenizer(std::string_view text) {
    using kind = tokenizer_choice::kind;
    static constexpr std::pair<std::string_view, kind> plain[] = {
        {"auto", kind::automatic}, {"server", kind::server}, {"usage", kind::usage}, {"ids", kind::ids},
        {"words", kind::words}};
    static constexpr std::pair<std::string_view, kind> with_file[] = {
        {"hf:", kind::hf}, {"tiktoken:", kind::tiktoken}, {"sentencepiece:", kind::sentencepiece}};
    tokenizer_choice c;
    for (const auto& [name, type] : plain)
        if (text == name) {
            c.type = type;
            return c;
        }
    for (const auto& [prefix, type] : with_file)
        if (text.size() > prefix.size() && text.substr(0, prefix.size()) == prefix) {
            c.type = type;
            c.model_file = std::string(text.substr(prefix.size()));
            return c;
        }
    throw std::invalid_argument("--tokenizer '" + std::string(text) +
                                "': expected auto, server, usage, ids, words, hf:PATH (a tokenizer.json or its "
                                "model directory), tiktoken:FILE.tiktoken or sentencepiece:FILE.model");
}

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
