#pragma once
// An agent's tools (--tools): the function schemas every request of a run
// carries, made once from the prompt vocabulary, the tool_choice sent with
// them, and how a session's tool loop goes on after a tool call: the tool's
// run time, its result's length and how many steps a user turn may take.
// Pure: no sockets, no clocks.

#include "openloop/load/length_dist.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/tokenize_endpoint.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct tool_config {
    int count = 0;                // --tools: functions sent with every request; 0: no tools
    int schema_len = 64;          // --tool-schema-len: words of each function's description
    std::string choice = "auto";  // --tool-choice: auto, required, none or a function's name
    duration_dist latency;        // --tool-latency: a tool call's end to its result's request
    length_dist result_len = length_dist::fixed(64);  // --tool-result-len: the tool message's tokens
    int max_steps = 8;            // --max-tool-steps: tool-result requests per user turn at most
    bool enabled() const { return count > 0; }
};

// The "tools" array: count functions named tool_0, tool_1, ..., each with a
// description of schema_len vocabulary words (drawn from seed and its index,
// so that runs with the same flags send the same tools, a prefix a server may
// cache) and a small JSON-schema parameters object: {"query": string}.
boost::json::array tool_schemas(int count, int schema_len, std::uint64_t seed);

// tool_choice's value: "auto", "required" and "none" as they are, any other
// word the function of that name ({"type":"function","function":{"name":..}}).
boost::json::value tool_choice_value(std::string_view choice);

// What the tools cost in prompt tokens, as the server counts them (its chat
// template renders them, each its own way): two max_tokens-1 chat requests
// (load/usage_probe.hpp) of one message, without and with the tools and the
// tool choice; the difference of their usage.prompt_tokens.
struct tools_probe {
    http_call without, with;
};
tools_probe tools_probe_calls(std::string_view api_base, std::string_view model, const boost::json::array& tools,
                              const boost::json::value& choice, const boost::json::object& extra);

// The tool message's content of tokens words into out (cleared first, its
// memory reused: no allocation once it held a result as long).
void tool_result_text(std::string& out, int tokens, std::uint64_t seed);

}  // namespace openloop
