#include "openloop/tokenize/text/pattern.hpp"

#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <boost/json.hpp>

#include <algorithm>

namespace openloop::hf {

text_pattern::text_pattern(const boost::json::value& v, const std::string& path) {
    const boost::json::object& o = as_object(v, path);
    if (auto s = get_optional_string(o, "String", path)) {
        if (s->empty()) json_error(path + ".String", "is empty");
        literal_ = std::move(*s);
    } else if (auto r = get_optional_string(o, "Regex", path)) {
        regex_.emplace(*r, regex_dialect::javascript, path + ".Regex");
    } else {
        json_error(path, "has neither \"String\" nor \"Regex\"");
    }
}

void text_pattern::matches(std::string_view text, std::vector<std::pair<std::size_t, std::size_t>>& out) const {
    if (regex_) {
        regex_->for_each_match(text, [&](std::size_t s, std::size_t e) { out.emplace_back(s, e); });
        return;
    }
    for (std::size_t at = text.find(literal_); at != std::string_view::npos; at = text.find(literal_, at + literal_.size()))
        out.emplace_back(at, at + literal_.size());
}

std::string text_pattern::replace_all(std::string_view text, std::string_view content, std::size_t limit) const {
    std::vector<std::pair<std::size_t, std::size_t>> found;
    matches(text, found);
    if (found.empty()) return std::string(text);
    std::string out;
    out.reserve(std::min(text.size() + found.size() * content.size(), limit));
    std::size_t pos = 0;
    for (const auto& [s, e] : found) {
        out.append(text.substr(pos, s - pos));
        out.append(content);
        pos = e;
        if (out.size() > limit) return out;
    }
    out.append(text.substr(pos));
    return out;
}

bool is_js_space(char32_t c) {
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
           c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

std::string_view trim_js_start(std::string_view s) {
    std::size_t pos = 0;
    while (pos < s.size()) {
        const std::size_t n = utf8::sequence_length(s, pos);
        if (n == 0 || !is_js_space(utf8::decode(s, pos, n))) break;
        pos += n;
    }
    return s.substr(pos);
}

std::string_view trim_js_end(std::string_view s) {
    std::size_t end = s.size();
    while (end > 0) {
        std::size_t start = end - 1;
        while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
        const std::size_t n = utf8::sequence_length(s, start);
        if (n != end - start || !is_js_space(utf8::decode(s, start, n))) break;
        end = start;
    }
    return s.substr(0, end);
}

}  // namespace openloop::hf
