#pragma once
// The stages of a Hugging Face tokenizer.json, each an interface with one
// factory that reads its JSON object: normalizer, pre-tokenizer, model,
// decoder. hf_tokenizer assembles them (added tokens and the post-processor
// are its own). A stage is immutable once made and safe to use from several
// threads at once.
//
// json_path names where the object lies, for errors: "<file>: <path>", e.g.
// "tokenizer.json: pre_tokenizer.pretokenizers[1]"; a factory throws
// std::runtime_error with that path and the field, e.g.
// "tokenizer.json: pre_tokenizer.pretokenizers[1].type \"Foo\" is not supported".

#include <boost/json/value.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

namespace openloop::hf {

// Text between added tokens, normalized, then cut by the pre-tokenizer.
// at_start: the piece begins at the start of the whole input (Metaspace's
// prepend_scheme "first" prepends only there).
struct piece {
    std::string text;
    bool at_start = false;
};

// A normalized text may be at most this many times longer than the text given
// to the tokenizer, and 256 bytes more (a Prepend to a short piece). The most
// a real normalizer makes of a text is 11 times its bytes (NFKD writes U+FDFA
// as 18 letters); a file's Replace steps can multiply it without end (eight of
// a -> ten a's make 10^8 of each a), so past the bound a step is refused, with
// input_error naming the file and the step.
inline constexpr std::size_t max_normalized_growth = 32;
inline std::size_t normalized_limit(std::size_t input_bytes) { return max_normalized_growth * input_bytes + 256; }

class normalizer {
public:
    virtual ~normalizer() = default;
    // limit: the most bytes the text may have once normalized. A step that could
    // multiply it (Replace, Precompiled) stops once its result passes limit, and
    // the text is refused (make_normalizer's steps check each result).
    virtual void apply(std::string& text, std::size_t limit) const = 0;
};

class pre_tokenizer {
public:
    virtual ~pre_tokenizer() = default;
    // Replaces each piece by the pieces it splits into, in order; empty
    // pieces are dropped. A piece cut from one keeps at_start only if it
    // begins where that one began.
    virtual void split(std::vector<piece>& pieces) const = 0;
};

class model {
public:
    virtual ~model() = default;
    // Appends the ids of one pre-tokenized piece.
    virtual void encode(std::string_view piece, std::vector<std::int32_t>& ids) const = 0;
    virtual std::optional<std::int32_t> token_id(std::string_view token) const = 0;
    // The token's text; empty for an id the vocabulary lacks.
    virtual std::string_view token(std::int32_t id) const = 0;
    // Every id of the model's vocabulary is below this.
    virtual std::size_t vocab_size() const = 0;
    // "BPE", "Unigram", "WordPiece": for description().
    virtual std::string_view kind() const = 0;
};

class decoder {
public:
    virtual ~decoder() = default;
    // Transforms the tokens' texts in place (may merge them into fewer);
    // the decoded text is their concatenation.
    virtual void apply(std::vector<std::string>& tokens) const = 0;
};

// Each reads one JSON object (its "type" chooses the kind); null where
// tokenizer.json has null gives no stage (nullptr). A normalizer made here
// refuses a result past apply's limit, naming json_path and its type; a
// model's vocabulary (millions of entries) is read with stop points.
std::unique_ptr<normalizer> make_normalizer(const boost::json::value& v, const std::string& json_path);
std::unique_ptr<pre_tokenizer> make_pre_tokenizer(const boost::json::value& v, const std::string& json_path);
std::unique_ptr<model> make_model(const boost::json::value& v, const std::string& json_path,
                                  const std::stop_token& stop = {});
std::unique_ptr<decoder> make_decoder(const boost::json::value& v, const std::string& json_path);

}  // namespace openloop::hf
