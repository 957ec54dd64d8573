#include "openloop/load/conversations.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/text_file.hpp"
#include "openloop/load/tokens.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <initializer_list>

namespace openloop {
namespace {

namespace json = boost::json;

enum class speaker { user, assistant, system, other };

speaker speaker_of(std::string_view role) {
    const auto in = [&](std::initializer_list<std::string_view> names) {
        return std::find(names.begin(), names.end(), role) != names.end();
    };
    if (in({"human", "user"})) return speaker::user;
    if (in({"gpt", "assistant", "chatgpt", "bing", "bard"})) return speaker::assistant;
    if (in({"system"})) return speaker::system;
    return speaker::other;
}

// A message's text: a string, or a list of content parts whose "text" joins.
std::string text_of(const json::value* v) {
    if (!v) return {};
    if (v->is_string()) return std::string(v->get_string());
    std::string out;
    if (const json::array* parts = v->if_array())
        for (const json::value& p : *parts)
            if (const json::object* o = p.if_object())
                if (const json::value* t = o->if_contains("text"); t && t->is_string()) {
                    if (!out.empty()) out.push_back(' ');
                    out.append(t->get_string());
                }
    return out;
}

// One conversation from its messages, under the keys its shape uses.
recorded_conversation from_messages(const json::array& messages, std::string_view role_key, std::string_view text_key,
                                    std::size_t max_turns) {
    recorded_conversation c;
    std::string user;
    for (const json::value& m : messages) {
        const json::object* o = m.if_object();
        const json::value* role = o ? o->if_contains(role_key) : nullptr;
        if (!role || !role->is_string()) continue;
        const std::string text = text_of(o->if_contains(text_key));
        switch (speaker_of(role->get_string())) {
        case speaker::system:
            if (c.turns.empty() && user.empty()) c.system = text;
            break;
        case speaker::user:
            if (!user.empty()) user.push_back('\n');
            user += text;
            break;
        case speaker::assistant: {
            const int asked = count_text_tokens(user), answered = count_text_tokens(text);
            if (asked == 0 || answered == 0) return c;  // what follows answers something not sent
            c.turns.push_back({std::move(user), asked, answered});
            user.clear();
            if (c.turns.size() >= max_turns) return c;
            break;
        }
        case speaker::other: break;
        }
    }
    return c;
}

// A ShareGPT entry or a JSONL line's object; no turns when it has none usable.
recorded_conversation from_entry(const json::object& entry, std::size_t max_turns) {
    if (const json::value* m = entry.if_contains("messages"); m && m->is_array())
        return from_messages(m->get_array(), "role", "content", max_turns);
    if (const json::value* m = entry.if_contains("conversations"); m && m->is_array())
        return from_messages(m->get_array(), "from", "value", max_turns);
    return {};
}

void keep(conversation_file& out, recorded_conversation c) {
    if (c.turns.empty()) {
        ++out.skipped;
        return;
    }
    out.max_turns = std::max(out.max_turns, c.turns.size());
    out.conversations.push_back(std::move(c));
}

}  // namespace

conversation_file read_conversations(const std::string& path, std::size_t max_turns) {
    const std::string text = read_text_file(path, "conversations file");
    conversation_file out;
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '[') {
        const json::value root = parse_json_text(text, path);
        for (const json::value& entry : root.get_array()) {
            const json::object* o = entry.if_object();
            keep(out, o ? from_entry(*o, max_turns) : recorded_conversation{});
        }
    } else {
        std::size_t number = 0, at = 0;
        while (at < text.size()) {
            const std::size_t end = std::min(text.find('\n', at), text.size());
            const std::string_view line(text.data() + at, end - at);
            at = end + 1;
            ++number;
            if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
            boost::system::error_code ec;
            const json::value v = json::parse(line, ec);
            const std::string where = path + ":" + std::to_string(number) + ": ";
            if (ec) throw input_error(where + "invalid JSON: " + ec.message());
            const json::object* o = v.if_object();
            if (!o || !(o->contains("messages") || o->contains("conversations")))
                throw input_error(where + "expected an object with \"messages\" (or a ShareGPT \"conversations\") list");
            keep(out, from_entry(*o, max_turns));
        }
    }
    if (out.conversations.empty())
        throw input_error(path + ": no usable conversations (need a user message and its answer, both non-empty)");
    return out;
}

}  // namespace openloop
