#pragma once
// Reads the named fields of one JSON object (one JSONL line) with the text of
// every number as written, so a time like 1714564800.123456789 keeps its
// nanoseconds (a double would not). A name is a top-level key or a dotted
// path into nested objects ("usage.prompt_tokens"). Pure logic.

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct json_field {
    enum class kind { missing, null, number, string, boolean, array, object };
    kind type = kind::missing;
    std::string text;                // a number's literal, a string's content
    // An array's elements that are numbers or strings, as text; nested
    // arrays, objects, booleans and nulls make the array mixed.
    std::vector<std::string> items;
    bool mixed = false;
};

// fields[i] := the value at names[i] of the object in line (missing when
// absent; the last one of repeated keys). Returns an empty string, or what
// is wrong: invalid JSON, or not an object.
std::string read_json_fields(std::string_view line, const std::vector<std::string>& names,
                             std::vector<json_field>& fields);

}  // namespace openloop
