#pragma once
// The WordPiece model of a tokenizer.json (BERT and the embedding models built
// on it): each pre-tokenized word cut greedily into the longest vocabulary
// entries, the later ones written with a prefix ("##").

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

// o is tokenizer.json's "model" object of type "WordPiece": vocab (token ->
// id), unk_token, continuing_subword_prefix, max_input_chars_per_word.
// Throws std::runtime_error naming json_path and the field.
std::unique_ptr<model> make_wordpiece_model(const boost::json::object& o, const std::string& json_path,
                                            const std::stop_token& stop = {});

}  // namespace openloop::hf
