// make_normalizer: the one place a normalizer's type is chosen.
#include "openloop/load/bert_normalizer.hpp"
#include "openloop/load/hf_json.hpp"
#include "openloop/load/hf_normalizers.hpp"
#include "openloop/load/precompiled_normalizer.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

std::unique_ptr<normalizer> make_normalizer(const boost::json::value& v, const std::string& path) {
    if (v.is_null()) return nullptr;
    const boost::json::object& o = as_object(v, path);
    const std::string type = type_of(o, path);
    if (auto n = make_builtin_normalizer(type, o, path)) return n;
    if (type == "BertNormalizer") return make_bert_normalizer(o, path);
    if (type == "Precompiled") return make_precompiled_normalizer(o, path);
    unsupported_type(path, type);
}

}  // namespace openloop::hf
