#include "openloop/load/tokenize_endpoint.hpp"

#include <boost/json.hpp>

namespace openloop {
namespace {

namespace json = boost::json;

// A token list: its length, and its ids where each item is one (an integer,
// or an object with an integer "id" as TGI and llama.cpp's with_pieces write).
void read_tokens(const json::value* v, tokenize_answer& out) {
    if (v == nullptr || !v->is_array()) return;
    const json::array& a = v->get_array();
    out.count = static_cast<int>(a.size());
    out.ids.reserve(a.size());
    for (const json::value& t : a) {
        const json::value* id = &t;
        if (const auto* o = t.if_object()) id = o->if_contains("id");
        if (id == nullptr || !id->is_int64()) {
            out.ids.clear();
            return;
        }
        out.ids.push_back(id->get_int64());
    }
}

}  // namespace

std::string_view dialect_name(tokenize_dialect d) {
    switch (d) {
    case tokenize_dialect::vllm: return "vllm";
    case tokenize_dialect::llamacpp: return "llama.cpp";
    case tokenize_dialect::tgi: return "tgi";
    }
    return "?";
}

std::string server_root(std::string_view base_path) {
    if (base_path.size() >= 3 && base_path.substr(base_path.size() - 3) == "/v1") base_path.remove_suffix(3);
    return std::string(base_path);
}

json::array chat_messages(std::string_view system_prompt, std::string_view text) {
    json::array messages;
    if (!system_prompt.empty()) messages.push_back(json::object{{"role", "system"}, {"content", system_prompt}});
    messages.push_back(json::object{{"role", "user"}, {"content", text}});
    return messages;
}

http_call tokenize_call(tokenize_dialect d, std::string_view root, std::string_view model, std::string_view text, bool chat,
                        std::string_view system_prompt) {
    const std::string r(root);
    switch (d) {
    case tokenize_dialect::vllm:
        if (chat)
            return {r + "/tokenize", json::serialize(json::object{{"model", model},
                                                                  {"messages", chat_messages(system_prompt, text)},
                                                                  {"add_generation_prompt", true}})};
        return {r + "/tokenize", json::serialize(json::object{{"model", model}, {"prompt", text}})};
    case tokenize_dialect::llamacpp:
        if (chat)
            return {r + "/apply-template", json::serialize(json::object{{"messages", chat_messages(system_prompt, text)}})};
        // As llama-server tokenizes a completion prompt: with BOS, specials parsed.
        return {r + "/tokenize",
                json::serialize(json::object{{"content", text}, {"add_special", true}, {"parse_special", true}})};
    case tokenize_dialect::tgi:
        if (chat)
            return {r + "/chat_tokenize",
                    json::serialize(json::object{{"model", model}, {"messages", chat_messages(system_prompt, text)}})};
        return {r + "/tokenize", json::serialize(json::object{{"inputs", text}})};
    }
    return {};
}

tokenize_answer read_tokenize_answer(tokenize_dialect d, std::string_view root, const http_call& call, int status,
                                     std::string_view body, bool chat) {
    tokenize_answer out;
    if (status != 200) return out;
    json::error_code ec;
    const json::value doc = json::parse(body, ec);
    if (ec) return out;
    const json::object* o = doc.if_object();
    switch (d) {
    case tokenize_dialect::vllm:
        if (o)
            if (const auto* c = o->if_contains("count"); c && c->is_int64()) {
                read_tokens(o->if_contains("tokens"), out);
                if (out.ids.size() != static_cast<std::size_t>(c->get_int64())) out.ids.clear();
                out.count = static_cast<int>(c->get_int64());
            }
        break;
    case tokenize_dialect::llamacpp:
        if (!o) break;
        if (chat && call.path.ends_with("/apply-template")) {
            const auto* p = o->if_contains("prompt");
            if (!p || !p->is_string()) break;
            // A chat request's templated prompt is tokenized like a completion's.
            out.next = tokenize_call(d, root, {}, p->get_string(), false);
        } else {
            read_tokens(o->if_contains("tokens"), out);
        }
        break;
    case tokenize_dialect::tgi:
        if (chat) {
            if (o) read_tokens(o->if_contains("tokenize_response"), out);
        } else {
            read_tokens(&doc, out);
        }
        break;
    }
    return out;
}

}  // namespace openloop
