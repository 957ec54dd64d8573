#pragma once
// The "Precompiled" normalizer of tokenizer.json files converted from
// SentencePiece models (T5, XLM-R, ALBERT, mBART): SentencePiece's own
// normalization rules (nmt_nfkc and the like), compiled into a double-array
// trie of byte sequences and the strings they become, carried base64-encoded
// in precompiled_charsmap. Applied as HF tokenizers does: each grapheme
// cluster replaced whole when the trie knows it, else character by character.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

// o is a "normalizer" object of type "Precompiled". Throws std::runtime_error
// naming json_path and the field when precompiled_charsmap is not a charsmap.
std::unique_ptr<normalizer> make_precompiled_normalizer(const boost::json::object& o, const std::string& json_path);

}  // namespace openloop::hf
