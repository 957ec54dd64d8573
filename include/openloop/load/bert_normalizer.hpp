#pragma once
// The normalizers of BERT-style tokenizer.json files, through ICU: Bert-
// Normalizer (control characters out, whitespace to spaces, spaces around CJK
// ideographs, accents stripped, lowercase) and the Lowercase and StripAccents
// it is made of. They follow HF tokenizers (the Rust library servers run)
// character by character.

#include "openloop/load/hf_parts.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

// Each takes its "normalizer" object (type "BertNormalizer": clean_text,
// handle_chinese_chars, strip_accents (null: as lowercase), lowercase).
// Throws std::runtime_error naming json_path and the field.
std::unique_ptr<normalizer> make_bert_normalizer(const boost::json::object& o, const std::string& json_path);
std::unique_ptr<normalizer> make_lowercase_normalizer(const boost::json::object& o, const std::string& json_path);
std::unique_ptr<normalizer> make_strip_accents_normalizer(const boost::json::object& o, const std::string& json_path);

}  // namespace openloop::hf
