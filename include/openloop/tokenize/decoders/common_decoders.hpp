#pragma once
// tokenizer.json's decoders, each turning tokens' texts back towards the text
// they came from: ByteLevel, Metaspace, Replace, ByteFallback, Fuse, Strip,
// WordPiece, BPEDecoder and Sequence, as transformers.js applies them.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace openloop::hf {

// The decoder of type type, or nullptr when type is not one of these.
std::unique_ptr<decoder> make_builtin_decoder(std::string_view type, const boost::json::object& o,
                                              const std::string& path);

// transformers.js's clean_up_tokenization: " ." to "." and the like.
void clean_up_tokenization(std::string& text);

}  // namespace openloop::hf
