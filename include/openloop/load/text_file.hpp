#pragma once
// A workload file read whole, and a JSON document parsed from it with the
// line of the first error, for the messages that name FILE:LINE.

#include <boost/json/value.hpp>

#include <string>
#include <string_view>

namespace openloop {

// The file's bytes; input_error naming path and what when it cannot be opened.
std::string read_text_file(const std::string& path, std::string_view what);

// text as one JSON value; input_error "PATH:LINE: invalid JSON: ..." otherwise.
boost::json::value parse_json_text(const std::string& text, const std::string& path);

}  // namespace openloop
