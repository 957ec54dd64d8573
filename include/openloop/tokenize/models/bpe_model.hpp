#pragma once
// tokenizer.json's BPE model: a vocabulary and a merges list (each merge "a b"
// or ["a", "b"]; its index is its rank), merged by bpe_merge. Options as
// transformers.js reads them: ignore_merges (a piece in the vocabulary is one
// token), byte_fallback (a part outside the vocabulary as its <0xNN> byte
// tokens), unk_token and fuse_unk, end_of_word_suffix. A piece's ids are
// cached (bounded), as words repeat.

#include "openloop/tokenize/stages.hpp"

#include <boost/json/object.hpp>

#include <memory>
#include <string>

namespace openloop::hf {

std::unique_ptr<model> make_bpe_model(const boost::json::object& o, const std::string& path,
                                      const std::stop_token& stop = {});

}  // namespace openloop::hf
