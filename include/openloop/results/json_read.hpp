#pragma once
// Reading a result file's JSON that may be old, partial or edited by hand:
// a field of the wrong type or missing reads as nothing (NaN, "", {}), never
// as an exception, so a page drawn from it shows "-" where a figure is not.

#include "openloop/base/json_text.hpp"

#include <boost/json.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// A number; "inf" (a latency past a request that never answered, an unbounded rate) is infinity.
inline double json_number(const boost::json::object& o, std::string_view key) {
    const boost::json::value* v = o.if_contains(key);
    const std::optional<double> n = v ? ms_from_json(*v) : std::nullopt;
    return n ? *n : NAN;
}

inline std::string json_text(const boost::json::object& o, std::string_view key) {
    const boost::json::value* v = o.if_contains(key);
    return v && v->is_string() ? std::string(v->get_string()) : std::string();
}

inline bool json_true(const boost::json::object& o, std::string_view key) {
    const boost::json::value* v = o.if_contains(key);
    return v && v->is_bool() && v->get_bool();
}

inline const boost::json::object& json_object(const boost::json::object& o, std::string_view key) {
    static const boost::json::object empty;
    const boost::json::value* v = o.if_contains(key);
    return v && v->is_object() ? v->get_object() : empty;
}

}  // namespace openloop
