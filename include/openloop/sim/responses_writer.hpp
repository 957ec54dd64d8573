#pragma once
// The simulator's answers on POST /v1/responses, in vLLM's shape of OpenAI's
// Responses API: a stream of typed events (response.created, in_progress,
// the message's output_item.added and content_part.added, one
// output_text.delta per engine step, the .done events with the whole text,
// and response.completed with the usage; no [DONE]), or, not streamed, the one
// response object. A thinking model's answer has a reasoning item first
// (output_index 0: reasoning_part.added, a response.reasoning_text.delta per
// engine step, its .done events), then the message. Appended to reused
// buffers, as event_writer's chunks are: nothing allocates per token once warm.

#include "openloop/sim/event_writer.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct responses_writer {
    std::string id;          // resp_...
    std::string item_id;     // msg_...: the one output message
    std::string model_json;  // the model's name as a JSON string
    std::int64_t created_unix = 0;
    int prompt_tokens = 0;
    int cached_tokens = 0;
    int sequence = 0;  // the next event's sequence_number
    // A thinking model: its first `reasoning` tokens are the reasoning item's
    // (words from event_writer's reasoning_state), whose whole text is `thinking`.
    int reasoning = 0;
    std::string reasoning_id;  // rs_...
    std::string thinking;

    // response.created, response.in_progress, output_item.added, content_part.added.
    void opening(std::string& out);
    // One response.output_text.delta: the next k words of words.
    void delta(std::string& out, event_writer& words, int k);
    // One engine step's k tokens after `before` were sent: reasoning deltas,
    // the reasoning item closed and the message opened where the thinking
    // ends, output_text deltas. Returns whether it held answer tokens.
    bool step(std::string& out, event_writer& words, int k, int before);
    // output_text.done, content_part.done, output_item.done and response.completed:
    // text is everything generated, completion its tokens; length: it stopped at
    // max_output_tokens (the response's status "incomplete", while the event is
    // still response.completed, as vLLM and SGLang send it; OpenAI's is response.incomplete).
    // An answer that ended while thinking has no message.
    void closing(std::string& out, std::string_view text, int completion, bool length);
    // The non-streamed answer: the response object with its output and usage.
    std::string body(std::string_view text, int completion, bool length);
    // A delta event cut off mid-object, as a buggy proxy sends.
    void malformed(std::string& out);

private:
    void event(std::string& out, std::string_view type);
    void response(std::string& out, std::string_view status, const std::string_view* text, int completion) const;
    void message(std::string& out, std::string_view status, const std::string_view* text) const;
    void reasoning_item(std::string& out, std::string_view status, bool with_text) const;
    void part_of_item(std::string& out) const;
    void part_of_reasoning(std::string& out) const;
    void open_message(std::string& out);
    void close_reasoning(std::string& out);  // its .done events
    bool answered(int completion) const { return reasoning == 0 || completion > reasoning; }
};

}  // namespace openloop
