#pragma once
// A tokenizer that runs in openloop's own process, for servers that offer no
// tokenize endpoint: a Hugging Face tokenizer.json (--tokenizer hf:PATH) or a
// tiktoken rank file (--tokenizer tiktoken:FILE). Its ids are the model's own,
// checked against the reference implementations (transformers.js, tiktoken).
// Pure logic: no sockets, no clocks; loading and encoding happen before the
// run, never on the io thread.

#include <cstdint>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

class local_tokenizer {
public:
    virtual ~local_tokenizer() = default;

    // The ids of text. add_special adds what the tokenizer's post-processor
    // adds around one sequence (Llama's BOS, BERT's [CLS] ... [SEP]), as a
    // server does for a completion prompt; added and special tokens written in
    // text are matched as such either way.
    virtual std::vector<std::int32_t> encode(std::string_view text, bool add_special) const = 0;
    // The text of ids; skip_special leaves special tokens out.
    virtual std::string decode(std::span<const std::int32_t> ids, bool skip_special) const = 0;
    // Every id, special tokens included, is below this.
    virtual std::size_t vocab_size() const = 0;
    // For messages: "hf tokenizer.json (BPE, 128256 tokens)".
    virtual std::string description() const = 0;
};

// A Hugging Face tokenizer: path is a tokenizer.json file or a model
// directory that holds one (its tokenizer_config.json is read too, when
// there, for add_bos_token and the like). Throws std::runtime_error naming the
// file and the JSON field when it cannot be read or uses a type not supported.
// Encoding throws input_error naming the file and the step when a normalizer
// multiplies the text (stages.hpp) or a regex gives up (text/unicode_regex.hpp).
// Loading stops (step_stopped) at a stop point once stop is requested.
std::unique_ptr<local_tokenizer> load_hf_tokenizer(const std::string& path, const std::stop_token& stop = {});
// The tokenizer.json that path names: path, or the one in the directory it is.
std::string hf_tokenizer_file(const std::string& path);

// A tiktoken .tiktoken rank file (lines "<base64 bytes> <rank>"); the
// pre-tokenizer pattern and special tokens are those of the encoding the file
// name names (cl100k_base, o200k_base, r50k_base, p50k_base). Throws
// std::runtime_error naming the file and line; stops as load_hf_tokenizer does.
std::unique_ptr<local_tokenizer> load_tiktoken(const std::string& file, const std::stop_token& stop = {});

}  // namespace openloop
