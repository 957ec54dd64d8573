#include "openloop/load/json_fields.hpp"

#include <boost/json/basic_parser_impl.hpp>

namespace openloop {
namespace {

namespace json = boost::json;
using json::error_code;
using json::string_view;

// A SAX handler that keeps only the values at the wanted paths.
struct field_handler {
    static constexpr std::size_t max_object_size = std::size_t(-1);
    static constexpr std::size_t max_array_size = std::size_t(-1);
    static constexpr std::size_t max_key_size = std::size_t(-1);
    static constexpr std::size_t max_string_size = std::size_t(-1);

    const std::vector<std::string>* names = nullptr;
    std::vector<json_field>* fields = nullptr;

    // The path of the value being read: keys joined by '.', one entry per
    // open object or array (arrays add no key).
    std::string path;
    std::vector<std::size_t> path_len;  // path's length before each level's key
    std::vector<bool> in_array;
    bool top_is_object = false;
    int depth = 0;
    int arrays_open = 0;  // wanted values are never inside an array
    std::string buffer;  // a string's or number's parts, or a key's

    // The field that the value at the current position fills, or null.
    json_field* target() {
        if (arrays_open > 0) return nullptr;
        for (std::size_t i = 0; i < names->size(); ++i)
            if ((*names)[i] == path) return &(*fields)[i];
        return nullptr;
    }
    // The wanted array whose direct element the current value is, or null.
    json_field* array_owner() {
        if (arrays_open != 1 || !in_array.back()) return nullptr;
        for (std::size_t i = 0; i < names->size(); ++i)
            if ((*names)[i] == path) return &(*fields)[i];
        return nullptr;
    }
    void scalar(json_field::kind k, std::string_view text) {
        if (json_field* f = target()) {
            f->type = k;
            f->text.assign(text);
            f->items.clear();
            f->mixed = false;
        } else if (json_field* a = array_owner()) {
            if (k == json_field::kind::number || k == json_field::kind::string)
                a->items.emplace_back(text);
            else
                a->mixed = true;
        }
    }
    void open(bool array) {
        if (depth == 0) {
            top_is_object = !array;
        } else if (json_field* f = target()) {
            f->type = array ? json_field::kind::array : json_field::kind::object;
            f->text.clear();
            f->items.clear();
            f->mixed = false;
        } else if (json_field* a = array_owner()) {
            a->mixed = true;
        }
        ++depth;
        path_len.push_back(path.size());
        in_array.push_back(array);
        arrays_open += array;
    }
    void close() {
        --depth;
        arrays_open -= in_array.back();
        path.resize(path_len.back());
        path_len.pop_back();
        in_array.pop_back();
    }

    bool on_document_begin(error_code&) { return true; }
    bool on_document_end(error_code&) { return true; }
    bool on_array_begin(error_code&) { open(true); return true; }
    bool on_array_end(std::size_t, error_code&) { close(); return true; }
    bool on_object_begin(error_code&) { open(false); return true; }
    bool on_object_end(std::size_t, error_code&) { close(); return true; }
    bool on_string_part(string_view s, std::size_t, error_code&) { buffer.append(s.data(), s.size()); return true; }
    bool on_string(string_view s, std::size_t, error_code&) {
        buffer.append(s.data(), s.size());
        scalar(json_field::kind::string, buffer);
        buffer.clear();
        return true;
    }
    bool on_key_part(string_view s, std::size_t, error_code&) { buffer.append(s.data(), s.size()); return true; }
    bool on_key(string_view s, std::size_t, error_code&) {
        buffer.append(s.data(), s.size());
        path.resize(path_len.back());
        if (depth > 1) path.push_back('.');
        path.append(buffer);
        buffer.clear();
        return true;
    }
    bool on_number_part(string_view s, error_code&) { buffer.append(s.data(), s.size()); return true; }
    bool number(string_view s) {
        buffer.append(s.data(), s.size());
        scalar(json_field::kind::number, buffer);
        buffer.clear();
        return true;
    }
    bool on_int64(std::int64_t, string_view s, error_code&) { return number(s); }
    bool on_uint64(std::uint64_t, string_view s, error_code&) { return number(s); }
    bool on_double(double, string_view s, error_code&) { return number(s); }
    bool on_bool(bool b, error_code&) { scalar(json_field::kind::boolean, b ? "true" : "false"); return true; }
    bool on_null(error_code&) { scalar(json_field::kind::null, "null"); return true; }
    bool on_comment_part(string_view, error_code&) { return true; }
    bool on_comment(string_view, error_code&) { return true; }
};

}  // namespace

std::string read_json_fields(std::string_view line, const std::vector<std::string>& names,
                             std::vector<json_field>& fields) {
    fields.assign(names.size(), json_field{});
    json::basic_parser<field_handler> parser(json::parse_options{});
    parser.handler().names = &names;
    parser.handler().fields = &fields;
    error_code ec;
    const std::size_t used = parser.write_some(false, line.data(), line.size(), ec);
    if (!ec && used != line.size()) ec = json::error::extra_data;
    if (ec) return "invalid JSON: " + ec.message();
    if (!parser.handler().top_is_object) return "expected a JSON object";
    return {};
}

}  // namespace openloop
