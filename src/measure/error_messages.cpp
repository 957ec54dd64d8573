#include "openloop/measure/error_messages.hpp"

#include <algorithm>

namespace openloop {

std::string printable_line(std::string_view s, std::size_t max) {
    std::string out;
    for (const char ch : s) {
        if (out.size() >= max) break;
        const auto c = static_cast<unsigned char>(ch);
        if (c <= 0x20 || c == 0x7f) {
            if (!out.empty() && out.back() != ' ') out += ' ';  // a run of blanks and controls: one space
        } else {
            out += c < 0x80 ? ch : '?';
        }
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
}

void error_messages::note(error_class cls, int status, std::string_view message) {
    auto it = std::find_if(entries_.begin(), entries_.end(),
                           [&](const error_messages_entry& e) { return e.cls == cls && e.status == status; });
    if (it == entries_.end()) {
        if (entries_.size() >= max_keys) {
            ++unkept_;
            return;
        }
        entries_.push_back({cls, status, 0, {}});
        it = entries_.end() - 1;
    }
    ++it->count;
    if (message.empty() || it->messages.size() >= max_messages) return;
    std::string line = printable_line(message, max_message_bytes);
    if (line.empty() || std::find(it->messages.begin(), it->messages.end(), line) != it->messages.end()) return;
    it->messages.push_back(std::move(line));
}

const error_messages_entry* error_messages::find(error_class cls, int status) const {
    const auto it = std::find_if(entries_.begin(), entries_.end(),
                                 [&](const error_messages_entry& e) { return e.cls == cls && e.status == status; });
    return it == entries_.end() ? nullptr : &*it;
}

}  // namespace openloop
