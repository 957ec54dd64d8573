#pragma once
// Formats the SSE events of one streamed completion in vLLM's chunk shape:
// text, and for a thinking model's chat answer its thinking first (in a
// reasoning field, or between <think> tags in the content) and each tool
// call's id, name and argument pieces.
// Each event is appended to a reused buffer: the simulator must outpace the
// generator it measures, so nothing here allocates per token once warm.

#include "openloop/sim/config.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

// One tool call of an answer: its argument tokens are [first, first + tokens) of the answer's.
struct streamed_call {
    std::string id;         // call_...
    std::string name_json;  // the function's name as a JSON string
    int first = 0, tokens = 0;
    std::uint64_t word_state = 0;  // the seed of its argument words (answer_plan.hpp's call_words)
};

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
    // A thinking model (--reasoning-tokens): usage carries the reasoning tokens
    // in the current shape; the older shape's answer chunks say reasoning_content null.
    bool thinks = false;
    reasoning_shape shape = reasoning_shape::reasoning;
    // A step that ends the thinking goes out as one chunk with both phases in the current
    // shape and between tags; in the older shape only with this (--quirk thinking-answer-chunk).
    bool older_shape_shares = false;
    int reasoning = 0;                  // this answer's first tokens that are thinking
    bool answers = true;                // an answer follows the thinking (max_tokens did not cut it)
    std::uint64_t reasoning_state = 0;  // the seed of the thinking's words
    // The answer after the thinking is tool calls, made at once, their arguments in order.
    bool tool_call = false;
    std::vector<streamed_call> calls;

    void usage(std::string& out, int completion) const;
    // The role-only first chunk of a chat stream.
    void role(std::string& out) const;
    // k output words, each with a leading space (one word per token).
    void words(std::string& out, int k);
    // k thinking words, from reasoning_state.
    void thinking_words(std::string& out, int k);
    // The thinking tokens [before, before + k) as text: their words, and between tags the
    // <think> that opens the first and the </think> that closes the last when an answer follows.
    void thinking_text(std::string& out, int before, int k);
    // k new tokens; completion = tokens sent including these. with_usage puts
    // the usage object on this chunk even without continuous usage stats.
    void content(std::string& out, int k, int completion, std::string_view finish_reason, bool with_usage = false);
    // The chunks of one engine step of a chat answer: its k tokens after
    // `before` were sent, thinking, text or a tool call by where they fall;
    // finish_reason and with_usage go on the step's last chunk. Returns
    // whether the step held answer tokens (text or the tool call).
    bool step(std::string& out, int k, int before, std::string_view finish_reason, bool with_usage = false);
    void empty_choices(std::string& out) const;
    void final_usage(std::string& out, int completion) const;
    // A chunk cut off mid-object, as a buggy proxy or a crashing worker sends.
    void malformed(std::string& out) const;

private:
    // The tool calls' pieces of the answer tokens [from, from + k), tokens sent before them.
    void call_pieces(std::string& out, int from, int k, int before, std::string_view finish_reason, bool with_usage);
    void open_delta(std::string& out) const;
    void close_choice(std::string& out, int completion, std::string_view finish_reason, bool with_usage) const;
};

// The k words a writer whose word_state starts at state generates.
std::string generated_words(std::uint64_t state, int k);
// A tool call's argument tokens [from, from + k) of `of`: {"query":" and a word each (state
// advanced per word), closed by "} with the last; escaped to sit inside a JSON string.
void append_arguments(std::string& out, std::uint64_t& state, int from, int k, int of, bool escaped);
// The first k argument tokens of a tool call of `of` tokens whose words start
// at state: with k == of, one whole JSON object.
std::string tool_arguments(std::uint64_t state, int k, int of);

// Appends v in decimal.
void append_int(std::string& out, std::int64_t v);

}  // namespace openloop
