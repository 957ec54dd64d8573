#pragma once
// The JSON text openloop writes: requests.jsonl lines, summary.json and
// sweep.json. Numbers are plain (15.0, 0.25), not Boost.JSON 1.81's 1.5E1.

#include <boost/json/value.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace openloop {

// Pretty-printed (two-space indent), ending with a newline; arrays of
// scalars stay on one line.
std::string pretty_json(const boost::json::value& value);
// The same on one line, no newline: a JSONL record.
std::string compact_json(const boost::json::value& value);

// Appends s as the inside of a JSON string (quotes, backslashes and control
// characters escaped; other bytes as they are, as Boost.JSON writes them).
void append_json_escaped(std::string& out, std::string_view s);

// One JSON object written field by field into a string the caller reuses,
// exactly as compact_json writes the same object (requests.jsonl lines
// without a JSON value built, and freed, per request).
class json_line {
public:
    explicit json_line(std::string& out) : out_(out) { out_.push_back('{'); }
    json_line& field(std::string_view key, std::int64_t v);
    json_line& field(std::string_view key, std::uint64_t v);
    json_line& field(std::string_view key, int v) { return field(key, std::int64_t{v}); }
    json_line& field(std::string_view key, double v);
    json_line& field(std::string_view key, bool v);
    json_line& field(std::string_view key, std::string_view v);
    json_line& field(std::string_view key, const char* v) { return field(key, std::string_view(v)); }
    json_line& null(std::string_view key);
    // An array of numbers: to_number(x) for each x of items.
    template <class Range, class ToNumber>
    json_line& numbers(std::string_view k, const Range& items, ToNumber to_number) {
        key(k);
        out_.push_back('[');
        bool first = true;
        for (const auto& x : items) {
            if (!first) out_.push_back(',');
            first = false;
            number(to_number(x));
        }
        out_.push_back(']');
        return *this;
    }
    void end() { out_.push_back('}'); }

private:
    void key(std::string_view k);
    void number(double v);
    std::string& out_;
    bool first_ = true;
};

// A latency in ms as the result files write it: the number, or "inf" (JSON has no infinity;
// vLLM writes an unbounded request rate so) for a statistic past a request that never
// answered. And back: nullopt for anything else, null included.
boost::json::value ms_json(double ms);
std::optional<double> ms_from_json(const boost::json::value& v);

// pretty_json written atomically (a temporary file renamed over path);
// throws std::runtime_error naming the path on failure.
void write_json_file(const std::string& path, const boost::json::value& value);

}  // namespace openloop
