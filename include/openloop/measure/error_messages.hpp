#pragma once
// The first few distinct messages of each kind of failure (error class and
// HTTP status), so that results can say *why* requests failed: the server's
// "maximum context length is 32768 tokens", "connect 127.0.0.1:9: Connection
// refused". Bounded whatever the server sends: at most max_keys kinds,
// max_messages distinct messages each, max_message_bytes per message. Only
// the io thread writes it; results read it once the io loop has stopped.

#include "openloop/measure/event.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct error_messages_entry {
    error_class cls = error_class::none;
    int status = 0;               // HTTP status, 0 when there was none
    std::uint64_t count = 0;      // failures of this kind seen by the client (warm-up included)
    std::vector<std::string> messages;  // distinct, in the order first seen
};

class error_messages {
public:
    static constexpr std::size_t max_keys = 32;
    static constexpr std::size_t max_messages = 3;
    static constexpr std::size_t max_message_bytes = 300;

    // One failure; message may be empty (a timeout says nothing more). It is
    // kept as one printable line, cut to max_message_bytes.
    void note(error_class cls, int status, std::string_view message);

    const std::vector<error_messages_entry>& entries() const { return entries_; }
    // The entry for a kind of failure, or null.
    const error_messages_entry* find(error_class cls, int status) const;
    // Failures of kinds beyond max_keys, counted only.
    std::uint64_t unkept() const { return unkept_; }

private:
    std::vector<error_messages_entry> entries_;
    std::uint64_t unkept_ = 0;
};

// s as one line of printable ASCII: runs of spaces, control characters and
// line breaks become one space, bytes past ASCII '?', cut to max bytes.
std::string printable_line(std::string_view s, std::size_t max);

}  // namespace openloop
