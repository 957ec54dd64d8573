#include "openloop/wire/responses_event.hpp"

namespace openloop {

responses_event classify_responses_event(std::string_view type) {
    if (type == "error") return responses_event::failure;
    if (!type.starts_with("response.")) return responses_event::none;
    type.remove_prefix(9);
    if (type == "output_text.delta" || type == "refusal.delta" || type == "function_call_arguments.delta")
        return responses_event::text_delta;
    if (type == "reasoning_text.delta" || type == "reasoning_summary_text.delta") return responses_event::reasoning_delta;
    // Hitting max_output_tokens ends OpenAI's stream with response.incomplete, as a finish_reason "length" would.
    if (type == "completed" || type == "incomplete") return responses_event::terminal;
    if (type == "failed") return responses_event::failure;
    return responses_event::other;
}

}  // namespace openloop
