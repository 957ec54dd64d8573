#pragma once
// One request of a production trace, as the parser (trace.hpp) reads it and
// the selection (trace_selection.hpp) keeps it.

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

// Tokens per hash block in Mooncake traces.
inline constexpr int trace_block_tokens = 512;

struct trace_entry {
    std::int64_t at_ns = 0;
    int input_tokens = 0;
    int output_tokens = 0;
    std::vector<std::uint64_t> hash_ids;  // prefix blocks, empty when unknown
    std::string prompt;   // literal prompt text (prompt=), empty when none
    std::string session;  // conversation / session id (session=), empty when none

    friend bool operator==(const trace_entry&, const trace_entry&) = default;
};

}  // namespace openloop
