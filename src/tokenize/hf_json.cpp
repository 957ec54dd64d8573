#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

#include <stdexcept>

namespace openloop::hf {

namespace json = boost::json;

namespace {

std::string field(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
}

}  // namespace

void json_error(const std::string& path, std::string_view what) {
    throw std::runtime_error(path + " " + std::string(what));
}

const json::object& as_object(const json::value& v, const std::string& path) {
    if (!v.is_object()) json_error(path, "is not a JSON object");
    return v.get_object();
}

const json::value* member(const json::object& o, std::string_view key) {
    const json::value* v = o.if_contains(key);
    return v == nullptr || v->is_null() ? nullptr : v;
}

std::string get_string(const json::object& o, std::string_view key, const std::string& path,
                       std::string_view fallback) {
    auto s = get_optional_string(o, key, path);
    return s ? std::move(*s) : std::string(fallback);
}

std::optional<std::string> get_optional_string(const json::object& o, std::string_view key,
                                               const std::string& path) {
    const json::value* v = member(o, key);
    if (v == nullptr) return std::nullopt;
    if (!v->is_string()) json_error(field(path, key), "is not a string");
    return std::string(v->get_string());
}

bool get_bool(const json::object& o, std::string_view key, const std::string& path, bool fallback) {
    const json::value* v = member(o, key);
    if (v == nullptr) return fallback;
    if (!v->is_bool()) json_error(field(path, key), "is not true or false");
    return v->get_bool();
}

std::int64_t get_int(const json::object& o, std::string_view key, const std::string& path, std::int64_t fallback) {
    const json::value* v = member(o, key);
    if (v == nullptr) return fallback;
    if (v->is_int64()) return v->get_int64();
    if (v->is_uint64() && v->get_uint64() <= std::uint64_t(INT64_MAX)) return std::int64_t(v->get_uint64());
    json_error(field(path, key), "is not an integer");
}

double get_double(const json::object& o, std::string_view key, const std::string& path, double fallback) {
    const json::value* v = member(o, key);
    if (v == nullptr) return fallback;
    if (!v->is_number()) json_error(field(path, key), "is not a number");
    return v->to_number<double>();
}

const json::array& get_array(const json::object& o, std::string_view key, const std::string& path) {
    const json::value* v = member(o, key);
    if (v == nullptr) json_error(field(path, key), "is missing");
    if (!v->is_array()) json_error(field(path, key), "is not an array");
    return v->get_array();
}

std::string type_of(const json::object& o, const std::string& path) {
    const json::value* v = member(o, "type");
    if (v == nullptr) json_error(field(path, "type"), "is missing");
    if (!v->is_string()) json_error(field(path, "type"), "is not a string");
    return std::string(v->get_string());
}

void unsupported_type(const std::string& path, std::string_view type) {
    json_error(field(path, "type"), "\"" + std::string(type) + "\" is not supported");
}

}  // namespace openloop::hf
