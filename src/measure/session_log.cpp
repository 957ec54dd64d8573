#include "openloop/measure/session_log.hpp"

#include "openloop/measure/event.hpp"
#include "openloop/base/json_text.hpp"


namespace openloop {

void session_log::session_ended(const session_end_line& s) {
    if (!file.is_open()) return;
    line_.clear();
    json_line o(line_);
    o.field("session", s.session);
    o.field("warmup", s.warmup);
    o.field("first_intended_ns", s.first_intended_ns);
    o.field("end_ns", s.end_ns);
    o.field("turns", s.turns);
    o.field("turns_completed", s.turns_completed);
    o.field("outcome", session_outcome(s.flags));
    o.end();
    line_.push_back('\n');
    file.write(line_);
}

const char* session_outcome(std::uint8_t flags) {
    return (flags & session_failed) ? "failed" : (flags & session_cut) ? "cut" : "completed";
}

std::uint8_t session_flags_of(std::string_view outcome, bool warmup) {
    const std::uint8_t w = warmup ? session_warmup : 0;
    if (outcome == "completed") return w;
    if (outcome == "cut") return static_cast<std::uint8_t>(w | session_cut);
    return static_cast<std::uint8_t>(w | session_failed);
}

}  // namespace openloop
