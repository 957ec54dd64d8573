#pragma once
// What a chat request's answer will be, decided before the engine decodes it:
// how many tokens the model thinks first (--reasoning-tokens, unless the
// request switches thinking off), then either text or one tool call (the
// request's tools, tool_choice, --tool-chain, --tool-call-share). Also how a
// request's tools, tool_choice and thinking switch are read, and the tool
// call's id and arguments. Pure: no sockets, no clocks.

#include "openloop/sim/config.hpp"
#include "openloop/sim/openai_api.hpp"

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct answer_plan {
    int reasoning = 0;     // thinking tokens, sent first
    int answer = 0;        // tokens after them; 0: the request ends while thinking
    bool tool_call = false;
    std::string function;  // the function called
    int total() const { return reasoning + answer; }
    // "length" when max_tokens ran out (thinking included), "tool_calls", else "stop".
    std::string_view finish(const completion_request& r) const;
};

// t := the body's tools (each {"type":"function","function":{"name":...}}),
// tool_choice, the tool results since the last user message, and
// chat_template_kwargs' thinking switch; false with err naming the field when
// they are malformed, as vLLM refuses them.
bool read_tool_request(const boost::json::object& body, tool_request& t, std::string& err);

// r's answer under cfg; h is the request's seed, so a request is answered the
// same way again. Chat and Responses requests think; chat requests call tools.
answer_plan plan_answer(const answer_config& cfg, const completion_request& r, std::uint64_t h);

// "call_" and 16 hex digits, a function of h.
std::string tool_call_id(std::uint64_t h);

}  // namespace openloop
