#include "openloop/sim/sim_tokenizer.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/prompt_builder.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/sim/media_parts.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace openloop {
namespace json = boost::json;

namespace {

// Special tokens, below sim_first_text_id.
constexpr std::uint64_t bos_id = 1;
constexpr std::uint64_t end_of_turn_id = 2;
constexpr std::uint64_t header_start_id = 3;
constexpr std::uint64_t header_end_id = 4;

// The whitespace tokens.hpp splits words on.
bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

std::uint64_t piece_id(std::string_view word, int piece) {
    std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a
    for (unsigned char c : word) h = (h ^ c) * 0x100000001b3ULL;
    return sim_first_text_id + mix64(h ^ mix64(static_cast<std::uint64_t>(piece))) % (sim_vocab_size - sim_first_text_id);
}

void append_text(const sim_tokenizer& tok, std::string_view text, std::vector<std::uint64_t>& ids) {
    if (tok.local) {
        for (const std::int32_t id : tok.local->encode(text, false)) ids.push_back(static_cast<std::uint64_t>(id));
        return;
    }
    if (tok.kind == sim_tokenizer_kind::words) {
        const auto words = text_token_ids(text);
        ids.insert(ids.end(), words.begin(), words.end());
        return;
    }
    std::size_t i = 0;
    while (i < text.size()) {
        while (i < text.size() && is_space(text[i])) ++i;
        std::size_t j = i;
        while (j < text.size() && !is_space(text[j])) ++j;
        const auto word = text.substr(i, j - i);
        if (!word.empty())
            for (int k = 0, n = subword_tokens(word); k < n; ++k) ids.push_back(piece_id(word, k));
        i = j;
    }
}

void append_header(std::string_view role, std::vector<std::uint64_t>& ids) {
    ids.push_back(header_start_id);
    ids.push_back(piece_id(role, 0));  // a role name is one token in real vocabularies
    ids.push_back(header_end_id);
}

bool read_bool(const json::object& o, std::string_view key, bool fallback) {
    const auto* v = o.if_contains(key);
    return v && v->is_bool() ? v->get_bool() : fallback;
}

bool completion_prompt_ids(const sim_tokenizer& tok, const json::value& prompt, bool add_special_tokens,
                           std::vector<std::uint64_t>& ids, std::string& err) {
    const json::value* p = &prompt;
    if (p->is_array() && !p->get_array().empty() && (p->get_array()[0].is_string() || p->get_array()[0].is_array())) {
        if (p->get_array().size() != 1) {
            err = "prompt: the simulator serves one prompt per request";
            return false;
        }
        p = &p->get_array()[0];
    }
    if (p->is_string()) {
        if (tok.kind != sim_tokenizer_kind::words && add_special_tokens) ids.push_back(bos_id);
        append_text(tok, p->get_string(), ids);
        return true;
    }
    if (!p->is_array()) {
        err = "prompt: a string or a list of token ids is required";
        return false;
    }
    // Token ids are what the model sees, under either tokenizer: nothing is added.
    for (const auto& t : p->get_array()) {
        // A negative id is no token (and to_number<uint64_t> would throw on it).
        if (!t.is_uint64() && !(t.is_int64() && t.get_int64() >= 0)) {
            err = "prompt: token ids must be non-negative integers, got " + json::serialize(t);
            return false;
        }
        ids.push_back(t.to_number<std::uint64_t>());
    }
    return true;
}

// An assistant message's tool calls, their names and arguments counted as
// text; false with err naming the field when one is malformed.
bool tool_call_ids(const sim_tokenizer& tok, const json::value& calls, const std::string& at,
                   std::vector<std::uint64_t>& ids, std::string& err) {
    const auto* list = calls.if_array();
    if (!list) {
        err = at + ".tool_calls: a list is required";
        return false;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string call_at = at + ".tool_calls[" + std::to_string(i) + "]";
        const auto* call = (*list)[i].if_object();
        const auto* function = call ? call->if_contains("function") : nullptr;
        if (!function || !function->is_object()) {
            err = call_at + ".function: an object is required";
            return false;
        }
        for (const char* key : {"name", "arguments"}) {
            const auto* v = function->get_object().if_contains(key);
            if (!v || !v->is_string()) {
                err = call_at + ".function." + key + ": a string is required";
                return false;
            }
            append_text(tok, v->get_string(), ids);
        }
    }
    return true;
}

bool message_ids(const sim_tokenizer& tok, const json::value& msg, std::size_t index, bool subword,
                 media_reader* media, std::vector<std::uint64_t>& ids, std::string& err) {
    const auto* mo = msg.if_object();
    if (!mo) {
        err = "messages[]: each message must be an object";
        return false;
    }
    const std::string at = "messages[" + std::to_string(index) + "]";
    const auto* role = mo->if_contains("role");
    const std::string_view role_name = role && role->is_string() ? std::string_view(role->get_string()) : "user";
    if (subword) append_header(role_name, ids);
    if (const auto* content = mo->if_contains("content"); content && content->is_string()) {
        append_text(tok, content->get_string(), ids);
    } else if (content && content->is_array()) {
        for (const auto& part : content->get_array()) {
            const auto* po = part.if_object();
            const auto* text = po ? po->if_contains("text") : nullptr;
            if (text && text->is_string()) {
                append_text(tok, text->get_string(), ids);
            } else if (po && media && !append_media_part(*media, *po, ids, err)) {
                return false;
            }
        }
    } else if (content && !content->is_null()) {
        err = "messages[].content must be a string or a list of content parts";
        return false;
    }
    if (const auto* calls = mo->if_contains("tool_calls"); calls && !calls->is_null()) {
        if (role_name != "assistant") {
            err = at + ".tool_calls: only an assistant message has tool calls";
            return false;
        }
        if (!tool_call_ids(tok, *calls, at, ids, err)) return false;
    }
    if (role_name == "tool") {
        const auto* id = mo->if_contains("tool_call_id");
        if (!id || !id->is_string()) {
            err = at + ".tool_call_id: a string is required in a tool message";
            return false;
        }
    }
    if (subword) ids.push_back(end_of_turn_id);
    return true;
}

// The tools and a response_format's schema come first, as a template puts
// them in its system prompt: a prefix shared by every request that carries them.
void preamble_ids(const sim_tokenizer& tok, const json::object& body, bool subword, std::vector<std::uint64_t>& ids) {
    const auto* tools = body.if_contains("tools");
    const auto* format = body.if_contains("response_format");
    const auto* schema = format && format->is_object() ? format->get_object().if_contains("json_schema") : nullptr;
    const bool has_tools = tools && tools->is_array() && !tools->get_array().empty();
    if (!has_tools && !(schema && schema->is_object())) return;
    if (subword) append_header("system", ids);
    if (has_tools)
        for (const auto& tool : tools->get_array()) append_text(tok, json::serialize(tool), ids);
    if (schema && schema->is_object()) append_text(tok, json::serialize(*schema), ids);
    if (subword) ids.push_back(end_of_turn_id);
}

bool chat_prompt_ids(const sim_tokenizer& tok, const json::object& body, bool add_generation_prompt,
                     bool add_special_tokens, media_reader* media, std::vector<std::uint64_t>& ids, std::string& err) {
    const auto* messages = body.if_contains("messages");
    if (!messages || !messages->is_array() || messages->get_array().empty()) {
        err = "messages: a non-empty list is required";
        return false;
    }
    const bool subword = tok.kind != sim_tokenizer_kind::words;  // a template around the content
    if (subword) {
        if (add_special_tokens) ids.push_back(bos_id);
        ids.push_back(bos_id);
    }
    preamble_ids(tok, body, subword, ids);
    const auto& list = messages->get_array();
    for (std::size_t i = 0; i < list.size(); ++i)
        if (!message_ids(tok, list[i], i, subword, media, ids, err)) return false;
    if (subword && add_generation_prompt) append_header("assistant", ids);
    return true;
}

}  // namespace

std::optional<sim_tokenizer> sim_tokenizer_from_name(std::string_view name) {
    if (name == "words") return sim_tokenizer{sim_tokenizer_kind::words, nullptr};
    if (name == "subword") return sim_tokenizer{sim_tokenizer_kind::subword, nullptr};
    if (!name.starts_with("hf:") && !name.starts_with("tiktoken:")) return std::nullopt;
    return sim_tokenizer{sim_tokenizer_kind::local, load_local_tokenizer(parse_tokenizer(name), "")};
}

int subword_tokens(std::string_view word) { return std::min<int>(3, static_cast<int>((word.size() + 2) / 3)); }

std::vector<std::uint64_t> sim_token_ids(const sim_tokenizer& tok, std::string_view text) {
    std::vector<std::uint64_t> ids;
    append_text(tok, text, ids);
    return ids;
}

bool request_prompt_ids(const sim_tokenizer& tok, const json::object& body, bool chat, std::vector<std::uint64_t>& ids,
                        std::string& err, media_reader* media) {
    try {
        if (chat)
            return chat_prompt_ids(tok, body, read_bool(body, "add_generation_prompt", true),
                                   read_bool(body, "add_special_tokens", false), media, ids, err);
        const auto* prompt = body.if_contains("prompt");
        if (!prompt) {
            err = "prompt: field required";
            return false;
        }
        return completion_prompt_ids(tok, *prompt, read_bool(body, "add_special_tokens", true), ids, err);
    } catch (const input_error& e) {
        // The --tokenizer file cannot count this prompt (its regex gave up, its normalizer
        // multiplied the text): the request's 400, naming them, not a dropped connection.
        err = std::string("the prompt cannot be tokenized: ") + e.what();
        return false;
    }
}

bool tokenize_request_ids(const sim_tokenizer& tok, const json::object& body, std::vector<std::uint64_t>& ids,
                          std::string& err, media_reader* media) {
    const bool chat = body.contains("messages");
    if (const auto* p = body.if_contains("prompt"); !chat && !(p && p->is_string())) {
        err = "prompt: a string is required (or messages: a list of messages)";
        return false;
    }
    return request_prompt_ids(tok, body, chat, ids, err, media);
}

}  // namespace openloop
