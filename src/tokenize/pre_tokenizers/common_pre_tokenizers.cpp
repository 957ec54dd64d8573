#include "openloop/tokenize/pre_tokenizers/common_pre_tokenizers.hpp"

#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/text/byte_level.hpp"
#include "openloop/tokenize/text/pattern.hpp"
#include "openloop/tokenize/text/unicode_regex.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

namespace json = boost::json;

namespace {

using spans = std::vector<std::pair<std::size_t, std::size_t>>;

// A pre-tokenizer that splits each piece on its own.
class piecewise : public pre_tokenizer {
public:
    void split(std::vector<piece>& pieces) const override {
        std::vector<piece> out;
        out.reserve(pieces.size() * 2);
        for (const piece& p : pieces) split_one(p, out);
        pieces = std::move(out);
    }

protected:
    virtual void split_one(const piece& p, std::vector<piece>& out) const = 0;
};

void push(const piece& in, std::size_t start, std::size_t end, std::vector<piece>& out) {
    if (end > start) out.push_back({in.text.substr(start, end - start), in.at_start && start == 0});
}

split_behavior behavior_of(const json::object& o, const std::string& path, split_behavior fallback) {
    const auto name = get_optional_string(o, "behavior", path);
    if (!name) return fallback;
    if (*name == "Removed") return split_behavior::removed;
    if (*name == "Isolated") return split_behavior::isolated;
    if (*name == "MergedWithPrevious") return split_behavior::merged_with_previous;
    if (*name == "MergedWithNext") return split_behavior::merged_with_next;
    if (*name == "Contiguous") return split_behavior::contiguous;
    json_error(path + ".behavior", "\"" + *name + "\" is not supported");
}

class split_pattern final : public piecewise {
public:
    split_pattern(const json::object& o, const std::string& path)
        : pattern_(member(o, "pattern") ? *member(o, "pattern") : json::value(), path + ".pattern"),
          behavior_(behavior_of(o, path, split_behavior::isolated)), invert_(get_bool(o, "invert", path, false)) {}

protected:
    void split_one(const piece& p, std::vector<piece>& out) const override {
        spans m;
        pattern_.matches(p.text, m);
        split_by_matches(p, m, behavior_, invert_, out);
    }

private:
    text_pattern pattern_;
    split_behavior behavior_;
    bool invert_;
};

// GPT-2's pre-tokenizer regex, as transformers.js writes it.
constexpr std::string_view gpt2_pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

class byte_level_split final : public piecewise {
public:
    byte_level_split(const json::object& o, const std::string& path)
        : add_prefix_space_(get_bool(o, "add_prefix_space", path, false)) {
        if (get_bool(o, "use_regex", path, true)) regex_.emplace(gpt2_pattern, regex_dialect::javascript, path);
    }

protected:
    void split_one(const piece& p, std::vector<piece>& out) const override {
        std::string text = p.text;
        if (add_prefix_space_ && !text.starts_with(' ')) text.insert(0, " ");
        const auto mapped = [&](std::size_t s, std::size_t e) {
            piece q{std::string(), p.at_start && s == 0};
            byte_level::encode(std::string_view(text).substr(s, e - s), q.text);
            out.push_back(std::move(q));
        };
        if (regex_) regex_->for_each_match(text, mapped);
        else if (!text.empty()) mapped(0, text.size());
    }

private:
    bool add_prefix_space_;
    std::optional<unicode_regex> regex_;
};

// Metaspace: spaces become the replacement (U+2581), which is prepended per
// prepend_scheme. A legacy add_prefix_space decides whether to prepend at all
// (as transformers.js reads it); split cuts before each replacement.
class metaspace final : public piecewise {
public:
    metaspace(const json::object& o, const std::string& path)
        : replacement_(get_string(o, "replacement", path, "\xE2\x96\x81")), split_(get_bool(o, "split", path, true)) {
        const std::string scheme = get_string(o, "prepend_scheme", path, "always");
        if (scheme != "always" && scheme != "first" && scheme != "never")
            json_error(path + ".prepend_scheme", "\"" + scheme + "\" is not always, first or never");
        scheme_ = get_bool(o, "add_prefix_space", path, true) ? scheme : "never";
        if (replacement_.empty()) json_error(path + ".replacement", "is empty");
    }

protected:
    void split_one(const piece& p, std::vector<piece>& out) const override {
        piece q{std::string(), p.at_start};
        q.text.reserve(p.text.size() + 8);
        for (const char c : p.text) {
            if (c == ' ') q.text += replacement_;
            else q.text += c;
        }
        if (!q.text.starts_with(replacement_) && (scheme_ == "always" || (scheme_ == "first" && p.at_start)))
            q.text.insert(0, replacement_);
        if (!split_) {
            if (!q.text.empty()) out.push_back(std::move(q));
            return;
        }
        spans m;
        for (std::size_t at = q.text.find(replacement_); at != std::string::npos;
             at = q.text.find(replacement_, at + replacement_.size()))
            m.emplace_back(at, at + replacement_.size());
        split_by_matches(q, m, split_behavior::merged_with_next, false, out);
    }

private:
    std::string replacement_;
    std::string scheme_;
    bool split_;
};

// Digits, Whitespace, WhitespaceSplit: the matches of a fixed regex are the
// pieces.
class regex_pieces final : public piecewise {
public:
    regex_pieces(std::string_view pattern, const std::string& path) : regex_(pattern, regex_dialect::javascript, path) {}

protected:
    void split_one(const piece& p, std::vector<piece>& out) const override {
        regex_.for_each_match(p.text, [&](std::size_t s, std::size_t e) { push(p, s, e, out); });
    }

private:
    unicode_regex regex_;
};

class punctuation final : public piecewise {
public:
    punctuation(const json::object& o, const std::string& path)
        : regex_("[\\p{P}\\x{21}-\\x{2F}\\x{3A}-\\x{40}\\x{5B}-\\x{60}\\x{7B}-\\x{7E}]", regex_dialect::javascript, path),
          behavior_(behavior_of(o, path, split_behavior::isolated)) {}

protected:
    void split_one(const piece& p, std::vector<piece>& out) const override {
        spans m;
        regex_.for_each_match(p.text, [&](std::size_t s, std::size_t e) { m.emplace_back(s, e); });
        split_by_matches(p, m, behavior_, false, out);
    }

private:
    unicode_regex regex_;
    split_behavior behavior_;
};

class pre_tokenizer_sequence final : public pre_tokenizer {
public:
    pre_tokenizer_sequence(const json::object& o, const std::string& path)
        : stages_(make_each(o, "pretokenizers", path, make_pre_tokenizer)) {}
    void split(std::vector<piece>& pieces) const override {
        for (const auto& s : stages_) s->split(pieces);
    }

private:
    std::vector<std::unique_ptr<pre_tokenizer>> stages_;
};

}  // namespace

void split_by_matches(const piece& in, const spans& matches, split_behavior behavior, bool invert,
                      std::vector<piece>& out) {
    // Every stretch of the text, a match or not (tokenizers' find_matches).
    struct stretch {
        std::size_t start, end;
        bool match;
    };
    std::vector<stretch> all;
    std::size_t pos = 0;
    for (const auto& [s, e] : matches) {
        if (s > pos) all.push_back({pos, s, invert});
        all.push_back({s, e, !invert});
        pos = e;
    }
    if (pos < in.text.size()) all.push_back({pos, in.text.size(), invert});

    std::vector<stretch> kept;
    bool previous_match = false;
    switch (behavior) {
    case split_behavior::removed:
        for (const stretch& s : all)
            if (!s.match) kept.push_back(s);
        break;
    case split_behavior::isolated:
        kept = all;
        break;
    case split_behavior::merged_with_previous:
        for (const stretch& s : all) {
            if (s.match && !previous_match && !kept.empty()) kept.back().end = s.end;
            else kept.push_back(s);
            previous_match = s.match;
        }
        break;
    case split_behavior::merged_with_next:
        for (auto it = all.rbegin(); it != all.rend(); ++it) {
            if (it->match && !previous_match && !kept.empty()) kept.back().start = it->start;
            else kept.push_back(*it);
            previous_match = it->match;
        }
        std::reverse(kept.begin(), kept.end());
        break;
    case split_behavior::contiguous:
        for (const stretch& s : all) {
            if (s.match == previous_match && !kept.empty()) kept.back().end = s.end;
            else kept.push_back(s);
            previous_match = s.match;
        }
        break;
    }
    for (const stretch& s : kept) push(in, s.start, s.end, out);
}

std::unique_ptr<pre_tokenizer> make_builtin_pre_tokenizer(std::string_view type, const json::object& o,
                                                          const std::string& path) {
    if (type == "Split") return std::make_unique<split_pattern>(o, path);
    if (type == "ByteLevel") return std::make_unique<byte_level_split>(o, path);
    if (type == "Metaspace") return std::make_unique<metaspace>(o, path);
    if (type == "Sequence") return std::make_unique<pre_tokenizer_sequence>(o, path);
    if (type == "Digits")
        return std::make_unique<regex_pieces>(get_bool(o, "individual_digits", path, false) ? "[^\\d]+|\\d" : "[^\\d]+|\\d+",
                                              path);
    if (type == "Whitespace") return std::make_unique<regex_pieces>("\\w+|[^\\w\\s]+", path);
    if (type == "WhitespaceSplit") return std::make_unique<regex_pieces>("\\S+", path);
    if (type == "Punctuation") return std::make_unique<punctuation>(o, path);
    return nullptr;
}

}  // namespace openloop::hf
