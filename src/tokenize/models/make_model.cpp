// make_model: the one place a model's type is chosen.
#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/models/bpe_model.hpp"
#include "openloop/tokenize/models/unigram_model.hpp"
#include "openloop/tokenize/models/wordpiece_model.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

std::unique_ptr<model> make_model(const boost::json::value& v, const std::string& path, const std::stop_token& stop) {
    if (v.is_null()) json_error(path, "is missing");
    const boost::json::object& o = as_object(v, path);
    // Old files (t5-small's, gpt2's, distilbert's) have no type: a Unigram
    // vocab is a list of pairs, a BPE model has merges, a WordPiece one a
    // continuing_subword_prefix.
    const boost::json::value* vocab = member(o, "vocab");
    const std::string type = member(o, "type")                     ? type_of(o, path)
                             : vocab && vocab->is_array()          ? "Unigram"
                             : member(o, "merges")                 ? "BPE"
                             : member(o, "continuing_subword_prefix") ? "WordPiece"
                                                                   : type_of(o, path);
    if (type == "BPE") return make_bpe_model(o, path, stop);
    if (type == "Unigram") return make_unigram_model(o, path, stop);
    if (type == "WordPiece") return make_wordpiece_model(o, path, stop);
    unsupported_type(path, type);
}

}  // namespace openloop::hf
