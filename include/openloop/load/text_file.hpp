#pragma once
// A workload file read whole, and a JSON document parsed from it with the
// line of the first error, for the messages that name FILE:LINE; a file of
// a directory the user named read only when it is a regular file of a
// bounded size.

#include <boost/json/value.hpp>

#include <cstddef>
#include <string>
#include <string_view>

namespace openloop {

// The file's bytes; input_error naming path and what when it cannot be opened.
std::string read_text_file(const std::string& path, std::string_view what);

// The bytes of path when it is a regular file (a symlink to one is followed)
// of at most max_bytes; otherwise input_error "WHAT: PATH: " and why: what it
// is instead (a directory, a FIFO, a device), or its size against the limit
// ("N bytes, more than the M bytes that fit in " limit_text, e.g. "the 256 MiB
// of base64 an image pool holds"). Never blocks on a FIFO and never reads
// more than max_bytes, whatever the file turns into.
std::string read_regular_file(const std::string& path, std::size_t max_bytes, std::string_view what,
                              std::string_view limit_text);

// text as one JSON value; input_error "PATH:LINE: invalid JSON: ..." otherwise.
boost::json::value parse_json_text(const std::string& text, const std::string& path);

}  // namespace openloop
