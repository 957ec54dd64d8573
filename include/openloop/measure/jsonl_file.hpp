#pragma once
// A line log on disk (requests.jsonl, sessions.jsonl): made new (base/output_file),
// written a whole line at a time, flushed by its owner, and checked at the
// end so a full disk is an error naming the file, not a silent loss.

#include "openloop/base/output_file.hpp"

#include <string>
#include <string_view>

namespace openloop {

class jsonl_file {
public:
    // Makes path new; throws std::runtime_error naming it when it cannot.
    void open(const std::string& path);
    bool is_open() const { return out_.is_open(); }
    // A line with its newline; no-op while not open.
    void write(std::string_view line);
    void flush();
    // Flushes; throws std::runtime_error naming the file when any write failed.
    void check();
    void close();

private:
    output_file out_;
    std::string path_;
};

}  // namespace openloop
