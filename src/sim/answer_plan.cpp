#include "openloop/sim/answer_plan.hpp"

#include "openloop/base/random.hpp"
#include "openloop/load/length_dist.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace openloop {

namespace json = boost::json;

namespace {

// Salts that keep a request's draws apart from its words (which start at h itself).
constexpr std::uint64_t thinking_salt = 0x7468696e6b696e67ULL;
constexpr std::uint64_t call_salt = 0x746f6f6c5f63616cULL;
constexpr std::uint64_t function_salt = 0x66756e6374696f6eULL;

std::string_view role_of(const json::value& message) {
    const auto* o = message.if_object();
    const auto* role = o ? o->if_contains("role") : nullptr;
    return role && role->is_string() ? std::string_view(role->get_string()) : std::string_view{};
}

bool read_tools(const json::value& tools, tool_request& t, std::string& err) {
    const auto* list = tools.if_array();
    if (!list) {
        err = "tools: a list of tools is required";
        return false;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string at = "tools[" + std::to_string(i) + "]";
        const auto* tool = (*list)[i].if_object();
        if (!tool) {
            err = at + ": a tool must be an object";
            return false;
        }
        if (const auto* type = tool->if_contains("type"); type && !(type->is_string() && type->get_string() == "function")) {
            err = at + ".type: only \"function\" tools are supported";
            return false;
        }
        const auto* function = tool->if_contains("function");
        const auto* name = function && function->is_object() ? function->get_object().if_contains("name") : nullptr;
        if (!name || !name->is_string()) {
            err = at + ".function.name: a string is required";
            return false;
        }
        t.names.emplace_back(name->get_string());
    }
    return true;
}

bool read_tool_choice(const json::value& choice, tool_request& t, std::string& err) {
    if (choice.is_string()) {
        const auto s = choice.get_string();
        if (s == "auto") return true;
        t.choice = s == "none" ? tool_choice_kind::none : s == "required" ? tool_choice_kind::required : t.choice;
        if (s == "none" || s == "required") return true;
    } else if (const auto* o = choice.if_object()) {
        const auto* function = o->if_contains("function");
        const auto* name = function && function->is_object() ? function->get_object().if_contains("name") : nullptr;
        if (name && name->is_string()) {
            t.choice = tool_choice_kind::named;
            t.forced = name->get_string();
            return true;
        }
    }
    err = "tool_choice: \"none\", \"auto\", \"required\" or {\"type\":\"function\",\"function\":{\"name\":...}} is "
          "required, got " + json::serialize(choice);
    return false;
}

// The id of a tool call or a tool message's tool_call_id; empty when absent.
std::string_view id_of(const json::object& o, std::string_view key) {
    const auto* id = o.if_contains(key);
    return id && id->is_string() ? std::string_view(id->get_string()) : std::string_view{};
}

// OpenAI's rule (vLLM renders whatever it is given): each tool call of an assistant message is
// answered by a tool message naming its id before any other message, and a tool message answers
// a call. An agent that answers one of two parallel calls is refused in OpenAI's words.
bool tool_results_answer_calls(const json::array& messages, std::string& err) {
    std::vector<std::string_view> open;  // calls of the last assistant message not answered yet
    std::size_t asked_at = 0;
    const auto unanswered = [&] {
        std::string ids;
        for (const auto id : open) ids.append(ids.empty() ? "" : ", ").append(id);
        err = "messages[" + std::to_string(asked_at) +
              "]: An assistant message with 'tool_calls' must be followed by tool messages responding to each "
              "'tool_call_id'. The following tool_call_ids did not have response messages: " + ids;
        return false;
    };
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const auto* m = messages[i].if_object();
        const auto role = role_of(messages[i]);
        if (!m) continue;
        if (role == "tool") {
            const auto answered = std::find(open.begin(), open.end(), id_of(*m, "tool_call_id"));
            if (answered == open.end()) {
                err = "messages[" + std::to_string(i) +
                      "].role: messages with role 'tool' must be a response to a preceding message with 'tool_calls'";
                return false;
            }
            open.erase(answered);
            continue;
        }
        if (!open.empty()) return unanswered();
        const auto* calls = role == "assistant" ? m->if_contains("tool_calls") : nullptr;
        if (!calls || !calls->is_array()) continue;
        asked_at = i;
        for (const auto& c : calls->get_array())
            if (const auto* call = c.if_object()) open.push_back(id_of(*call, "id"));
    }
    return open.empty() || unanswered();
}

}  // namespace

bool read_tool_request(const json::object& body, tool_request& t, std::string& err) {
    if (const auto* tools = body.if_contains("tools"); tools && !tools->is_null() && !read_tools(*tools, t, err))
        return false;
    if (const auto* choice = body.if_contains("tool_choice"); choice && !choice->is_null()) {
        if (!read_tool_choice(*choice, t, err)) return false;
        // vLLM's words for a choice that cannot be met.
        if (t.choice != tool_choice_kind::auto_ && t.choice != tool_choice_kind::none && t.names.empty()) {
            err = "tool_choice: when using `tool_choice`, `tools` must be set.";
            return false;
        }
        if (t.choice == tool_choice_kind::named && std::find(t.names.begin(), t.names.end(), t.forced) == t.names.end()) {
            err = "tool_choice: the function `" + t.forced + "` specified in `tool_choice` does not match any of the "
                  "specified `tools`";
            return false;
        }
    }
    if (const auto* messages = body.if_contains("messages"); messages && messages->is_array()) {
        for (const auto& m : messages->get_array()) {
            const auto role = role_of(m);
            if (role == "user") t.tool_results = 0;
            if (role == "tool") ++t.tool_results;
        }
        if (!tool_results_answer_calls(messages->get_array(), err)) return false;
    }
    if (const auto* kwargs = body.if_contains("chat_template_kwargs"); kwargs && kwargs->is_object()) {
        for (const char* key : {"enable_thinking", "thinking"})
            if (const auto* v = kwargs->get_object().if_contains(key); v && v->is_bool() && !v->get_bool()) t.thinking = false;
    }
    return true;
}

std::string_view answer_plan::finish(const completion_request& r) const {
    if (answer == 0) return "length";
    if (tool_call) return "tool_calls";
    return r.ignore_eos || total() == r.max_tokens ? "length" : "stop";
}

answer_plan plan_answer(const answer_config& cfg, const completion_request& r, std::uint64_t h) {
    answer_plan p;
    if (r.chat && cfg.reasoning_tokens && r.tools.thinking) {
        request_rng rng(h ^ thinking_salt);
        p.reasoning = std::min(cfg.reasoning_tokens->sample(rng), r.max_tokens);
    }
    p.answer = answer_length(r, h, p.reasoning);
    const tool_request& t = r.tools;
    if (r.responses || t.names.empty() || t.choice == tool_choice_kind::none || p.answer == 0) return p;
    p.tool_call = t.choice != tool_choice_kind::auto_;
    if (!p.tool_call) {
        const double u = static_cast<double>(mix64(h ^ call_salt) >> 11) * 0x1.0p-53;
        p.tool_call = cfg.tool_chain > 0 ? t.tool_results < cfg.tool_chain : u < cfg.tool_call_share;
    }
    if (!p.tool_call) return p;
    // A named tool_choice calls its function once; otherwise each call draws one of the tools.
    const int calls = t.choice == tool_choice_kind::named ? 1 : std::min(cfg.parallel_calls, p.answer);
    for (int i = 0; i < calls; ++i)
        p.functions.push_back(t.choice == tool_choice_kind::named
                                  ? t.forced
                                  : t.names[mix64((h ^ function_salt) + static_cast<std::uint64_t>(i)) % t.names.size()]);
    return p;
}

std::uint64_t call_words(std::uint64_t h, int i) { return i == 0 ? h : mix64(h + static_cast<std::uint64_t>(i)); }

std::string tool_call_id(std::uint64_t h) {
    static constexpr char hex[] = "0123456789abcdef";
    std::string id = "call_";
    const std::uint64_t x = mix64(h ^ call_salt ^ function_salt);
    for (int shift = 60; shift >= 0; shift -= 4) id.push_back(hex[(x >> shift) & 15]);
    return id;
}

}  // namespace openloop
