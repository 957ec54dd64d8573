// make_pre_tokenizer: the one place a pre-tokenizer's type is chosen.
#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/pre_tokenizers/bert_pre_tokenizer.hpp"
#include "openloop/tokenize/pre_tokenizers/common_pre_tokenizers.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

std::unique_ptr<pre_tokenizer> make_pre_tokenizer(const boost::json::value& v, const std::string& path) {
    if (v.is_null()) return nullptr;
    const boost::json::object& o = as_object(v, path);
    const std::string type = type_of(o, path);
    if (auto p = make_builtin_pre_tokenizer(type, o, path)) return p;
    if (type == "BertPreTokenizer") return make_bert_pre_tokenizer(o, path);
    unsupported_type(path, type);
}

}  // namespace openloop::hf
