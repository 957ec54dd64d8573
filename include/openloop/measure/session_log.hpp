#pragma once
// sessions.jsonl: one line per session of a sessions run as it ends (its
// first turn's intended time, its end, turns planned and completed, how it
// ended), so `openloop report` and `openloop merge` rebuild the session
// figures that requests.jsonl alone cannot tell (how many turns a failed or
// cut session had left).

#include "openloop/measure/jsonl_file.hpp"
#include "openloop/measure/request_sink.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct session_end_line {
    std::uint64_t session = 0;
    bool warmup = false;
    std::int64_t first_intended_ns = 0, end_ns = 0;
    std::int64_t turns = 0, turns_completed = 0;
    std::uint8_t flags = 0;  // event.hpp's session_* flags
};

class session_log : public request_sink {
public:
    // The file, opened, flushed, checked and closed by the reporter.
    jsonl_file file;
    // A session's line, as it ends; no-op while not open.
    void session_ended(const session_end_line& s) override;

private:
    std::string line_;  // reused for every line
};

// "completed", "failed" or "cut", from the flags, and back (nullopt-free: an
// unknown word reads as failed, the outcome that claims least).
const char* session_outcome(std::uint8_t flags);
std::uint8_t session_flags_of(std::string_view outcome, bool warmup);

}  // namespace openloop
