#pragma once
// What a chat request's answer will be, decided before the engine decodes it:
// how many tokens the model thinks first (--reasoning-tokens, unless the
// request switches thinking off), then either text or tool calls (the
// request's tools, tool_choice, --tool-chain, --tool-call-share, and
// --parallel-tool-calls of them at once). Also how a request's tools,
// tool_choice, thinking switch and earlier tool calls' results are read, and
// each tool call's id and arguments. Pure: no sockets, no clocks.

#include "openloop/sim/config.hpp"
#include "openloop/sim/openai_api.hpp"

#include <boost/json/fwd.hpp>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct answer_plan {
    int reasoning = 0;     // thinking tokens, sent first
    int answer = 0;        // tokens after them; 0: the request ends while thinking
    bool tool_call = false;
    // The functions called, one per call (--parallel-tool-calls, at most one per answer token);
    // the answer's tokens are the calls' arguments, split between them in order.
    std::vector<std::string> functions;
    int calls() const { return static_cast<int>(functions.size()); }
    // Call i's first argument token within the answer, and how many it has.
    int call_first(int i) const { return answer * i / calls(); }
    int call_tokens(int i) const { return call_first(i + 1) - call_first(i); }
    int total() const { return reasoning + answer; }
    // "length" when max_tokens ran out (thinking included), "tool_calls", else "stop".
    std::string_view finish(const completion_request& r) const;
};

// t := the body's tools (each {"type":"function","function":{"name":...}}),
// tool_choice, the tool results since the last user message, and
// chat_template_kwargs' thinking switch; false with err naming the field when
// they are malformed, as vLLM refuses them, or when an assistant's tool calls
// are not each answered by a tool message naming its id before the next
// message (and a tool message answers no call), as OpenAI refuses them.
bool read_tool_request(const boost::json::object& body, tool_request& t, std::string& err);

// r's answer under cfg; h is the request's seed, so a request is answered the
// same way again. Chat and Responses requests think; chat requests call tools.
answer_plan plan_answer(const answer_config& cfg, const completion_request& r, std::uint64_t h);

// "call_" and 16 hex digits, a function of h; call i of an answer is tool_call_id(h + i).
std::string tool_call_id(std::uint64_t h);
// The seed of call i's argument words: h for the first call, as a single call has.
std::uint64_t call_words(std::uint64_t h, int i);

}  // namespace openloop
