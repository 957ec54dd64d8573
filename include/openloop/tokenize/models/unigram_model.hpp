#pragma once
// The Unigram model of a tokenizer.json (SentencePiece's: T5, XLM-R, ALBERT,
// mBART): a vocabulary of [piece, log-probability] pairs and the Viterbi
// segmentation of each pre-tokenized piece into the most probable pieces.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

// o is tokenizer.json's "model" object of type "Unigram": vocab, unk_id,
// byte_fallback. Throws std::runtime_error naming json_path and the field.
std::unique_ptr<model> make_unigram_model(const boost::json::object& o, const std::string& json_path,
                                          const std::stop_token& stop = {});

}  // namespace openloop::hf
