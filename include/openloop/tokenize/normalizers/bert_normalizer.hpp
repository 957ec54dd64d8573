#pragma once
// The normalizer of BERT-style tokenizer.json files (type "BertNormalizer"),
// through ICU: control characters out, whitespace to spaces, spaces around
// CJK ideographs, accents stripped, lowercase; character by character as HF
// tokenizers (the Rust library servers run) does.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

// o is the "normalizer" object: clean_text, handle_chinese_chars,
// strip_accents (null: as lowercase), lowercase. Throws std::runtime_error
// naming json_path and the field.
std::unique_ptr<normalizer> make_bert_normalizer(const boost::json::object& o, const std::string& json_path);

}  // namespace openloop::hf
