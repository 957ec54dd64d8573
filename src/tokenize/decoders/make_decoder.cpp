// make_decoder: the one place a decoder's type is chosen.
#include "openloop/tokenize/decoders/common_decoders.hpp"
#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

std::unique_ptr<decoder> make_decoder(const boost::json::value& v, const std::string& path) {
    if (v.is_null()) return nullptr;
    const boost::json::object& o = as_object(v, path);
    const std::string type = type_of(o, path);
    if (auto d = make_builtin_decoder(type, o, path)) return d;
    unsupported_type(path, type);
}

}  // namespace openloop::hf
