// make_model: the one place a model's type is chosen.
#include "openloop/load/bpe_model.hpp"
#include "openloop/load/hf_json.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

std::unique_ptr<model> make_model(const boost::json::value& v, const std::string& path) {
    if (v.is_null()) json_error(path, "is missing");
    const boost::json::object& o = as_object(v, path);
    // Old files have no type; a BPE model is the one with merges.
    const std::string type = member(o, "type") || !member(o, "merges") ? type_of(o, path) : "BPE";
    if (type == "BPE") return make_bpe_model(o, path);
    unsupported_type(path, type);
}

}  // namespace openloop::hf
