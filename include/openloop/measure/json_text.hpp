#pragma once
// The JSON text openloop writes: requests.jsonl lines, summary.json and
// sweep.json. Numbers are plain (15.0, 0.25), not Boost.JSON 1.81's 1.5E1.

#include <boost/json/value.hpp>

#include <string>

namespace openloop {

// Pretty-printed (two-space indent), ending with a newline; arrays of
// scalars stay on one line.
std::string pretty_json(const boost::json::value& value);
// The same on one line, no newline: a JSONL record.
std::string compact_json(const boost::json::value& value);

// pretty_json written atomically (a temporary file renamed over path);
// throws std::runtime_error naming the path on failure.
void write_json_file(const std::string& path, const boost::json::value& value);

}  // namespace openloop
