#pragma once
// The JSONL files openloop reads back (requests.jsonl, windows.jsonl), line
// by line as a killed run may have left them: blank lines skipped, and a
// line that is not a JSON object the reader takes (a torn last line) counted
// with the number of the first such line, never read as data. Pure.

#include <boost/json/object.hpp>

#include <cstddef>
#include <functional>
#include <string_view>

namespace openloop {

struct jsonl_tally {
    std::size_t bad_lines = 0;
    std::size_t first_bad_line = 0;  // 1-based; 0: none
};

// take(object) returns false for an object that is not one of the file's records.
jsonl_tally read_jsonl(std::string_view text, const std::function<bool(const boost::json::object&)>& take);

}  // namespace openloop
