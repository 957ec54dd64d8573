#pragma once
// BERT's pre-tokenizer (type "BertPreTokenizer"): whitespace cut out,
// each punctuation character a piece of its own, as HF tokenizers splits.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

// o has no fields but its type.
std::unique_ptr<pre_tokenizer> make_bert_pre_tokenizer(const boost::json::object& o, const std::string& json_path);

}  // namespace openloop::hf
