#pragma once
// tokenizer.json's normalizers: NFC, NFD, NFKC, NFKD (ICU), Replace (a String
// or a Regex), Prepend, Lowercase, Strip, StripAccents and Sequence, as
// transformers.js applies them to each stretch of text between added tokens.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>
#include <string_view>

namespace openloop::hf {

// The normalizer of type type, or nullptr when type is not one of these.
std::unique_ptr<normalizer> make_builtin_normalizer(std::string_view type, const boost::json::object& o,
                                                    const std::string& path);

}  // namespace openloop::hf
