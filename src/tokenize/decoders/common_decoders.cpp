#include "openloop/tokenize/decoders/common_decoders.hpp"

#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/text/byte_level.hpp"
#include "openloop/tokenize/text/pattern.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <boost/json.hpp>

namespace openloop::hf {

namespace json = boost::json;

namespace {

void replace_all(std::string& s, std::string_view from, std::string_view to) {
    if (from.empty()) return;
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
        s.replace(at, from.size(), to);
}

// The bytes the tokens stand for, as one text (invalid UTF-8 as U+FFFD). A
// token with a character outside the alphabet (an added token such as
// "<｜User｜>") stands for its own bytes.
class byte_level_decoder final : public decoder {
public:
    void apply(std::vector<std::string>& tokens) const override {
        std::string bytes;
        for (const std::string& t : tokens) {
            const std::size_t mark = bytes.size();
            if (!byte_level::decode(t, bytes)) {
                bytes.resize(mark);
                bytes += t;
            }
        }
        tokens.assign(1, utf8::sanitize(bytes));
    }
};

class metaspace_decoder final : public decoder {
public:
    metaspace_decoder(const json::object& o, const std::string& path)
        : replacement_(get_string(o, "replacement", path, "\xE2\x96\x81")) {
        const std::string scheme = get_string(o, "prepend_scheme", path, "always");
        strip_first_ = get_bool(o, "add_prefix_space", path, scheme != "never");
    }
    void apply(std::vector<std::string>& tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            replace_all(tokens[i], replacement_, " ");
            if (i == 0 && strip_first_ && tokens[i].starts_with(' ')) tokens[i].erase(0, 1);
        }
    }

private:
    std::string replacement_;
    bool strip_first_;
};

class replace_decoder final : public decoder {
public:
    replace_decoder(const json::object& o, const std::string& path)
        : pattern_(member(o, "pattern") ? *member(o, "pattern") : json::value(), path + ".pattern"),
          content_(get_string(o, "content", path)) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (std::string& t : tokens) t = pattern_.replace_all(t, content_);
    }

private:
    text_pattern pattern_;
    std::string content_;
};

int hex(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

// Runs of <0xNN> tokens become the text of their bytes (invalid UTF-8 as
// U+FFFD, as a TextDecoder reads it).
class byte_fallback final : public decoder {
public:
    void apply(std::vector<std::string>& tokens) const override {
        std::vector<std::string> out;
        std::string bytes;
        bool in_run = false;
        for (std::string& t : tokens) {
            if (t.size() == 6 && t.starts_with("<0x") && t.back() == '>' && hex(t[3]) >= 0 && hex(t[4]) >= 0) {
                bytes += char(hex(t[3]) * 16 + hex(t[4]));
                in_run = true;
                continue;
            }
            if (in_run) out.push_back(utf8::sanitize(bytes));
            bytes.clear();
            in_run = false;
            out.push_back(std::move(t));
        }
        if (in_run) out.push_back(utf8::sanitize(bytes));
        tokens = std::move(out);
    }
};

class fuse final : public decoder {
public:
    void apply(std::vector<std::string>& tokens) const override {
        std::string all;
        for (const std::string& t : tokens) all += t;
        tokens.assign(1, std::move(all));
    }
};

// Up to start leading and stop trailing copies of one character off each token.
class strip_decoder final : public decoder {
public:
    strip_decoder(const json::object& o, const std::string& path)
        : content_(get_string(o, "content", path)), start_(get_int(o, "start", path, 0)),
          stop_(get_int(o, "stop", path, 0)) {
        if (content_.empty() || utf8::sequence_length(content_, 0) != content_.size())
            json_error(path + ".content", "is not one character");
    }
    void apply(std::vector<std::string>& tokens) const override {
        for (std::string& t : tokens) {
            std::string_view s = t;
            for (std::int64_t i = 0; i < start_ && s.starts_with(content_); ++i) s.remove_prefix(content_.size());
            for (std::int64_t i = 0; i < stop_ && s.ends_with(content_); ++i) s.remove_suffix(content_.size());
            if (s.size() != t.size()) t = std::string(s);
        }
    }

private:
    std::string content_;
    std::int64_t start_, stop_;
};

class word_piece_decoder final : public decoder {
public:
    word_piece_decoder(const json::object& o, const std::string& path)
        : prefix_(get_string(o, "prefix", path, "##")), cleanup_(get_bool(o, "cleanup", path, true)) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) {
            std::string& t = tokens[i];
            if (i != 0) {
                if (!prefix_.empty() && t.starts_with(prefix_)) t.erase(0, prefix_.size());
                else t.insert(0, " ");
            }
            if (cleanup_) clean_up_tokenization(t);
        }
    }

private:
    std::string prefix_;
    bool cleanup_;
};

class bpe_decoder final : public decoder {
public:
    bpe_decoder(const json::object& o, const std::string& path) : suffix_(get_string(o, "suffix", path, "</w>")) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (std::size_t i = 0; i < tokens.size(); ++i) replace_all(tokens[i], suffix_, i + 1 == tokens.size() ? "" : " ");
    }

private:
    std::string suffix_;
};

class decoder_sequence final : public decoder {
public:
    decoder_sequence(const json::object& o, const std::string& path)
        : stages_(make_each(o, "decoders", path, make_decoder)) {}
    void apply(std::vector<std::string>& tokens) const override {
        for (const auto& d : stages_) d->apply(tokens);
    }

private:
    std::vector<std::unique_ptr<decoder>> stages_;
};

}  // namespace

void clean_up_tokenization(std::string& text) {
    static constexpr std::pair<std::string_view, std::string_view> rules[] = {
        {" .", "."}, {" ?", "?"}, {" !", "!"}, {" ,", ","}, {" ' ", "'"},
        {" n't", "n't"}, {" 'm", "'m"}, {" 's", "'s"}, {" 've", "'ve"}, {" 're", "'re"}};
    for (const auto& [from, to] : rules) replace_all(text, from, to);
}

std::unique_ptr<decoder> make_builtin_decoder(std::string_view type, const json::object& o, const std::string& path) {
    if (type == "ByteLevel") return std::make_unique<byte_level_decoder>();
    if (type == "Metaspace") return std::make_unique<metaspace_decoder>(o, path);
    if (type == "Replace") return std::make_unique<replace_decoder>(o, path);
    if (type == "ByteFallback") return std::make_unique<byte_fallback>();
    if (type == "Fuse") return std::make_unique<fuse>();
    if (type == "Strip") return std::make_unique<strip_decoder>(o, path);
    if (type == "WordPiece") return std::make_unique<word_piece_decoder>(o, path);
    if (type == "BPEDecoder") return std::make_unique<bpe_decoder>(o, path);
    if (type == "Sequence") return std::make_unique<decoder_sequence>(o, path);
    return nullptr;
}

}  // namespace openloop::hf
