#include "openloop/tokenize/processors/post_processor.hpp"

#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

namespace json = boost::json;

namespace {

std::int32_t id_named(const json::value& v, const std::string& path, const post_processor::id_of& ids) {
    if (!v.is_string()) json_error(path, "is not a token");
    const auto id = ids(v.get_string());
    if (!id) json_error(path, "\"" + std::string(v.get_string()) + "\" is not a token of the vocabulary");
    return *id;
}

// BertProcessing's "cls": ["[CLS]", 101].
std::int32_t pair_id(const json::object& o, std::string_view key, const std::string& path) {
    const std::string at = path + "." + std::string(key);
    const json::value* v = member(o, key);
    if (v == nullptr || !v->is_array() || v->get_array().size() != 2 || !v->get_array()[1].is_int64())
        json_error(at, "is not [token, id]");
    return std::int32_t(v->get_array()[1].get_int64());
}

}  // namespace

post_processor::post_processor(const json::value& v, const std::string& path, const id_of& ids) {
    read(v, path, ids);
}

void post_processor::read(const json::value& v, const std::string& path, const id_of& ids) {
    if (v.is_null()) return;
    const json::object& o = as_object(v, path);
    const std::string type = type_of(o, path);
    if (type == "ByteLevel") return;
    if (type == "BertProcessing" || type == "RobertaProcessing") {
        around({pair_id(o, "cls", path)}, {pair_id(o, "sep", path)});
        return;
    }
    if (type == "Sequence") {
        const json::array& list = get_array(o, "processors", path);
        for (std::size_t i = 0; i < list.size(); ++i) read(list[i], path + ".processors[" + std::to_string(i) + "]", ids);
        return;
    }
    if (type != "TemplateProcessing") unsupported_type(path, type);
    // The "single" template: special tokens before and after sequence A.
    const json::array& single = get_array(o, "single", path);
    const json::value* specials = member(o, "special_tokens");
    std::vector<std::int32_t> before, after;
    bool seen_a = false;
    for (std::size_t i = 0; i < single.size(); ++i) {
        const std::string at = path + ".single[" + std::to_string(i) + "]";
        const json::object& item = as_object(single[i], at);
        if (member(item, "Sequence")) {
            seen_a = true;
            continue;
        }
        const json::value* special = member(item, "SpecialToken");
        if (special == nullptr) json_error(at, "is neither a SpecialToken nor a Sequence");
        const json::object& s = as_object(*special, at + ".SpecialToken");
        const json::value* name = member(s, "id");
        if (name == nullptr) json_error(at + ".SpecialToken.id", "is missing");
        std::vector<std::int32_t> added;
        // special_tokens may give the ids a name stands for; else its own id.
        const json::value* entry = specials && specials->is_object() && name->is_string()
                                       ? member(specials->get_object(), name->get_string())
                                       : nullptr;
        const json::value* listed = entry && entry->is_object() ? member(entry->get_object(), "ids") : nullptr;
        if (listed && listed->is_array()) {
            for (const json::value& id : listed->get_array()) {
                if (!id.is_int64()) json_error(path + ".special_tokens", "has an id that is not an integer");
                added.push_back(std::int32_t(id.get_int64()));
            }
        } else {
            added.push_back(id_named(*name, at + ".SpecialToken.id", ids));
        }
        auto& side = seen_a ? after : before;
        side.insert(side.end(), added.begin(), added.end());
    }
    around(before, after);
}

void post_processor::around(const std::vector<std::int32_t>& before, const std::vector<std::int32_t>& after) {
    // A later processor of a Sequence wraps what the earlier ones made.
    before_.insert(before_.begin(), before.begin(), before.end());
    after_.insert(after_.end(), after.begin(), after.end());
}

void post_processor::apply(std::vector<std::int32_t>& ids) const {
    ids.insert(ids.begin(), before_.begin(), before_.end());
    ids.insert(ids.end(), after_.begin(), after_.end());
}

}  // namespace openloop::hf
