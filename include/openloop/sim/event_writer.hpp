#pragma once
// Formats the SSE events of one streamed completion in vLLM's chunk shape.
// Each event is appended to a reused buffer: the simulator must outpace the
// generator it measures, so nothing here allocates per token once warm.

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct event_writer {
    bool chat = false;
    bool continuous_usage = false;
    std::string head;  // {"id":...,"object":...,"created":...,"model":...,"choices":
    int prompt_tokens = 0;
    int cached_tokens = 0;
    std::uint64_t word_state = 0;
    // > 0 (quirk absurd-usage): every usage figure past the first token says
    // this many completion tokens instead of the truth.
    std::int64_t absurd_completion = 0;

    void usage(std::string& out, int completion) const;
    // The role-only first chunk of a chat stream.
    void role(std::string& out) const;
    // k output words, each with a leading space (one word per token).
    void words(std::string& out, int k);
    // k new tokens; completion = tokens sent including these. with_usage puts
    // the usage object on this chunk even without continuous usage stats.
    void content(std::string& out, int k, int completion, std::string_view finish_reason, bool with_usage = false);
    void empty_choices(std::string& out) const;
    void final_usage(std::string& out, int completion) const;
    // A chunk cut off mid-object, as a buggy proxy or a crashing worker sends.
    void malformed(std::string& out) const;
};

// The k words a writer whose word_state starts at state generates.
std::string generated_words(std::uint64_t state, int k);

// Appends v in decimal.
void append_int(std::string& out, std::int64_t v);

}  // namespace openloop
