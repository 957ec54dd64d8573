#include "openloop/load/usage_probe.hpp"

#include "openloop/load/tokenize_endpoint.hpp"

#include <boost/json.hpp>

namespace openloop {

namespace json = boost::json;

namespace {

// What the probe sets for itself: the run's own values of these would make it long or streamed.
constexpr std::string_view probe_fields[] = {"model",     "messages",   "prompt",     "max_tokens", "max_completion_tokens",
                                             "min_tokens", "ignore_eos", "stream",     "stream_options", "n"};

bool probe_field(std::string_view key) {
    for (const auto f : probe_fields)
        if (f == key) return true;
    return false;
}

std::string cut(std::string_view text) {
    constexpr std::size_t most = 160;
    return text.size() <= most ? std::string(text) : std::string(text.substr(0, most)) + "...";
}

}  // namespace

http_call usage_probe_call(std::string_view api_base, std::string_view model, std::string_view text, bool chat,
                           const json::object& extra, std::string_view system_prompt) {
    json::object body;
    body["model"] = model;
    if (chat) {
        body["messages"] = chat_messages(system_prompt, text);
    } else {
        body["prompt"] = text;
    }
    body["max_tokens"] = 1;
    body["stream"] = false;
    for (const auto& [key, value] : extra)
        if (!probe_field(key)) body[key] = value;
    return {std::string(api_base) + (chat ? "/chat/completions" : "/completions"), json::serialize(body)};
}

usage_answer read_usage_answer(int status, std::string_view body) {
    usage_answer a;
    json::error_code ec;
    const json::value doc = json::parse(body, ec);
    const json::object* o = ec ? nullptr : doc.if_object();
    if (status != 200) {
        a.problem = "HTTP " + std::to_string(status);
        const auto* err = o ? o->if_contains("error") : nullptr;
        const auto* msg = err && err->is_object() ? err->get_object().if_contains("message") : nullptr;
        if (msg && msg->is_string()) a.problem += ": " + cut(msg->get_string());
        return a;
    }
    if (!o) {
        a.problem = "the answer is not a JSON object";
        return a;
    }
    const auto* usage = o->if_contains("usage");
    const auto* n = usage && usage->is_object() ? usage->get_object().if_contains("prompt_tokens") : nullptr;
    if (!n || !n->is_int64() || n->get_int64() < 0 || n->get_int64() > 100'000'000) {
        a.problem = "the answer has no usage.prompt_tokens";
        return a;
    }
    a.prompt_tokens = static_cast<int>(n->get_int64());
    return a;
}

}  // namespace openloop
