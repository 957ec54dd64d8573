#pragma once
// Reading the fields of a tokenizer.json object with errors that name the
// file and the JSON path ("tokenizer.json: model.merges[3] is not a string").
// Every stage's factory (stages.hpp) reads its object through these.

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace openloop::hf {

// Throws std::runtime_error "<path> <what>".
[[noreturn]] void json_error(const std::string& path, std::string_view what);

// v as an object, or an error naming path.
const boost::json::object& as_object(const boost::json::value& v, const std::string& path);
// The member key of o, or nullptr when absent or null.
const boost::json::value* member(const boost::json::object& o, std::string_view key);

// Typed members: an error when present with another type; the fallback when
// absent or null.
std::string get_string(const boost::json::object& o, std::string_view key, const std::string& path,
                       std::string_view fallback = {});
std::optional<std::string> get_optional_string(const boost::json::object& o, std::string_view key,
                                               const std::string& path);
bool get_bool(const boost::json::object& o, std::string_view key, const std::string& path, bool fallback);
std::int64_t get_int(const boost::json::object& o, std::string_view key, const std::string& path,
                     std::int64_t fallback);
double get_double(const boost::json::object& o, std::string_view key, const std::string& path, double fallback);
// A required array member.
const boost::json::array& get_array(const boost::json::object& o, std::string_view key, const std::string& path);

// A Sequence stage's list at key, each entry made by make(entry, its path);
// the entries make returns null for (a no-op stage) left out.
template <class Make>
auto make_each(const boost::json::object& o, std::string_view key, const std::string& path, Make make) {
    const boost::json::array& list = get_array(o, key, path);
    std::vector<decltype(make(list[0], path))> stages;
    for (std::size_t i = 0; i < list.size(); ++i) {
        auto stage = make(list[i], path + "." + std::string(key) + "[" + std::to_string(i) + "]");
        if (stage) stages.push_back(std::move(stage));
    }
    return stages;
}

// The "type" member; an error when absent.
std::string type_of(const boost::json::object& o, const std::string& path);
// The error for a type no factory knows.
[[noreturn]] void unsupported_type(const std::string& path, std::string_view type);

}  // namespace openloop::hf
