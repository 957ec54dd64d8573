#include "openloop/load/prompt_files.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/text_file.hpp"
#include "openloop/load/tokens.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <initializer_list>
#include <string_view>

namespace openloop {
namespace {

namespace json = boost::json;

bool role_is(const json::value* from, std::initializer_list<std::string_view> names) {
    if (!from || !from->is_string()) return false;
    const std::string_view s = from->get_string();
    return std::find(names.begin(), names.end(), s) != names.end();
}

}  // namespace

std::vector<file_item> load_prompts(const std::string& path) {
    const std::string text = read_text_file(path, "prompts file");
    std::vector<file_item> items;
    std::size_t number = 0;
    std::string_view rest = text;
    while (!rest.empty()) {
        ++number;
        const std::size_t end = rest.find('\n');
        std::string_view line = rest.substr(0, end);
        rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
        auto fail = [&](const std::string& what) {
            return input_error(path + ":" + std::to_string(number) + ": " + what);
        };
        if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;

        boost::system::error_code ec;
        const json::value v = json::parse(line, ec);
        if (ec) throw fail("invalid JSON: " + ec.message());
        const json::object* obj = v.if_object();
        if (!obj) throw fail("expected a JSON object");
        const json::value* p = obj->if_contains("prompt");
        if (!p) p = obj->if_contains("text");
        if (!p || !p->is_string()) throw fail("missing string field \"prompt\" (or \"text\")");

        file_item item;
        item.prompt = std::string(p->get_string());
        item.input_tokens = count_text_tokens(item.prompt);
        if (item.input_tokens == 0) throw fail("field \"prompt\" has no words");
        const json::value* m = obj->if_contains("max_tokens");
        if (!m) m = obj->if_contains("output_len");
        if (m) {
            if (!m->is_int64() || m->get_int64() < 1 || m->get_int64() > std::numeric_limits<int>::max())
                throw fail("field \"max_tokens\" (or \"output_len\") must be a positive integer, got " +
                           json::serialize(*m));
            item.max_tokens = int(m->get_int64());
        }
        items.push_back(std::move(item));
    }
    if (items.empty()) throw input_error(path + ": no prompts");
    return items;
}

std::vector<file_item> load_sharegpt(const std::string& path, std::size_t& skipped) {
    const json::value root = parse_json_text(read_text_file(path, "ShareGPT file"), path);
    const json::array* entries = root.if_array();
    if (!entries) throw input_error(path + ": expected a JSON array of {\"conversations\": [...]} entries");

    std::vector<file_item> items;
    for (const json::value& entry : *entries) {
        const json::object* obj = entry.if_object();
        const json::value* conv = obj ? obj->if_contains("conversations") : nullptr;
        const json::array* turns = conv ? conv->if_array() : nullptr;
        const json::string* prompt = nullptr;
        const json::string* reply = nullptr;
        if (turns && turns->size() >= 2) {
            for (const json::value& turn : *turns) {
                const json::object* t = turn.if_object();
                const json::value* value = t ? t->if_contains("value") : nullptr;
                if (!value || !value->is_string()) continue;
                const json::value* from = t->if_contains("from");
                if (!prompt && role_is(from, {"human", "user"})) {
                    prompt = &value->get_string();
                } else if (prompt && role_is(from, {"gpt", "assistant", "chatgpt", "bing", "bard"})) {
                    reply = &value->get_string();
                    break;
                }
            }
        }
        file_item item;
        if (prompt && reply) {
            item.prompt = std::string(*prompt);
            item.input_tokens = count_text_tokens(item.prompt);
            item.max_tokens = count_text_tokens(*reply);
        }
        if (item.input_tokens == 0 || item.max_tokens == 0) {
            ++skipped;
            continue;
        }
        items.push_back(std::move(item));
    }
    if (items.empty())
        throw input_error(path + ": no usable conversations (need a human turn and a reply, both non-empty)");
    return items;
}

}  // namespace openloop
