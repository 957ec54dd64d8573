// load_hf_tokenizer: a tokenizer.json's stages assembled (stages.hpp), with
// its added tokens matched first and its post-processor, and what
// tokenizer_config.json says about decoding. Each choice follows
// transformers.js, the reference the ids are checked against.

#include "openloop/base/stop_point.hpp"
#include "openloop/tokenize/added_tokens.hpp"
#include "openloop/tokenize/decoders/common_decoders.hpp"
#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/tokenize/processors/post_processor.hpp"
#include "openloop/tokenize/stages.hpp"
#include "openloop/tokenize/text/pattern.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

namespace openloop {

namespace json = boost::json;
namespace fs = std::filesystem;

namespace {

// A vocabulary of millions of tokens is a hundred MB that takes seconds to read
// and parse: both go a MiB at a time, with a stop point between.
constexpr std::size_t chunk = 1 << 20;

// A regular file (the callers check), read to the size it has.
std::string read_file(const fs::path& file, const std::stop_token& stop) {
    std::ifstream in(file, std::ios::binary);
    std::error_code ec;
    const auto size = fs::file_size(file, ec);
    if (!in || ec) throw std::runtime_error(file.string() + ": cannot be read");
    std::string text(size, '\0');
    for (std::size_t at = 0; at < text.size();) {
        stop_point(stop);
        in.read(text.data() + at, std::streamsize(std::min(chunk, text.size() - at)));
        if (in.gcount() <= 0) throw std::runtime_error(file.string() + ": cannot be read");
        at += std::size_t(in.gcount());
    }
    return text;
}

json::value parse_json(const std::string& text, const std::string& name, const std::stop_token& stop) {
    json::parse_options options;
    options.allow_invalid_utf8 = false;
    json::stream_parser parser(json::storage_ptr(), options);  // its own stack on the heap, freed as it grows
    parser.reset(json::make_shared_resource<json::monotonic_resource>());  // the document, freed at once
    boost::system::error_code ec;
    for (std::size_t at = 0; at < text.size() && !ec; at += chunk) {
        stop_point(stop);
        parser.write(text.data() + at, std::min(chunk, text.size() - at), ec);
    }
    if (!ec) parser.finish(ec);
    if (ec) throw std::runtime_error(name + ": is not valid JSON: " + ec.message());
    return parser.release();
}

class hf_tokenizer final : public local_tokenizer {
public:
    hf_tokenizer(const fs::path& file, const std::string& name, const std::stop_token& stop) : name_(name) {
        const json::value doc = parse_json(read_file(file, stop), name, stop);
        const json::object& root = hf::as_object(doc, name + ":");
        const auto at = [&](std::string_view key) { return name + ": " + std::string(key); };
        const auto stage = [&](std::string_view key) -> const json::value& {
            static const json::value null;
            const json::value* v = hf::member(root, key);
            return v ? *v : null;
        };
        model_ = hf::make_model(stage("model"), at("model"), stop);
        normalizer_ = hf::make_normalizer(stage("normalizer"), at("normalizer"));
        pre_tokenizer_ = hf::make_pre_tokenizer(stage("pre_tokenizer"), at("pre_tokenizer"));
        decoder_ = hf::make_decoder(stage("decoder"), at("decoder"));
        if (const json::value* m = hf::member(root, "model"); m && m->is_object())
            end_of_word_suffix_ = hf::get_string(m->get_object(), "end_of_word_suffix", at("model"));
        read_added_tokens(stage("added_tokens"), at("added_tokens"), stop);
        post_.emplace(stage("post_processor"), at("post_processor"),
                      [this](std::string_view t) { return id_of(t); });
        read_config(file.parent_path() / "tokenizer_config.json");
        vocab_size_ = model_->vocab_size();
        for (const hf::added_token& t : added_.all()) vocab_size_ = std::max(vocab_size_, std::size_t(t.id) + 1);
    }

    std::vector<std::int32_t> encode(std::string_view raw, bool add_special) const override {
        const std::string text = utf8::sanitize(raw);
        std::vector<std::int32_t> ids;
        std::vector<hf::section> sections;
        added_.split(text, sections);
        std::vector<hf::piece> pieces;
        for (const hf::section& s : sections) {
            if (s.token >= 0) {
                ids.push_back(added_.all()[std::size_t(s.token)].id);
                continue;
            }
            if (s.end <= s.start) continue;
            pieces.assign(1, hf::piece{text.substr(s.start, s.end - s.start), s.start == 0});
            if (normalizer_) {
                normalizer_->apply(pieces[0].text, hf::normalized_limit(pieces[0].text.size()));
                if (pieces[0].text.empty()) continue;
            }
            if (pre_tokenizer_) pre_tokenizer_->split(pieces);
            for (const hf::piece& p : pieces) model_->encode(p.text, ids);
        }
        if (add_special) post_->apply(ids);
        return ids;
    }

    std::string decode(std::span<const std::int32_t> ids, bool skip_special) const override {
        std::vector<std::string> tokens;
        tokens.reserve(ids.size());
        for (const std::int32_t id : ids) {
            std::string_view t;
            if (auto it = added_by_id_.find(id); it != added_by_id_.end()) t = added_.all()[it->second].content;
            else t = model_->token(id);
            if (t.empty()) continue;  // an id of no token
            if (skip_special && special_.contains(std::string(t))) continue;
            tokens.emplace_back(t);
        }
        std::string text;
        if (decoder_) {
            decoder_->apply(tokens);
            for (const std::string& t : tokens) text += t;
        } else {
            for (std::size_t i = 0; i < tokens.size(); ++i) text += (i ? " " : "") + tokens[i];
        }
        if (decoder_ && !end_of_word_suffix_.empty()) {
            for (std::size_t at = text.find(end_of_word_suffix_); at != std::string::npos; at = text.find(end_of_word_suffix_, at + 1))
                text.replace(at, end_of_word_suffix_.size(), " ");
            if (skip_special) text = std::string(hf::trim_js_end(hf::trim_js_start(text)));
        }
        if (clean_up_) hf::clean_up_tokenization(text);
        return text;
    }

    std::size_t vocab_size() const override { return vocab_size_; }
    std::string description() const override {
        return "hf " + name_ + " (" + std::string(model_->kind()) + ", " + std::to_string(vocab_size_) + " tokens)";
    }

private:
    std::optional<std::int32_t> id_of(std::string_view token) const {
        for (const hf::added_token& t : added_.all())
            if (t.content == token) return t.id;
        return model_->token_id(token);
    }

    void read_added_tokens(const json::value& v, const std::string& path, const std::stop_token& stop) {
        if (v.is_null()) return;
        if (!v.is_array()) hf::json_error(path, "is not an array");
        const json::array& list = v.get_array();
        for (std::size_t i = 0; i < list.size(); ++i) {
            stop_point(stop, i);
            const std::string at = path + "[" + std::to_string(i) + "]";
            const json::object& o = hf::as_object(list[i], at);
            hf::added_token t;
            t.content = hf::get_string(o, "content", at);
            const std::int64_t id = hf::get_int(o, "id", at, -1);
            if (id < 0 || id > INT32_MAX) hf::json_error(at + ".id", "is not a token id");
            t.id = std::int32_t(id);
            t.special = hf::get_bool(o, "special", at, false);
            t.lstrip = hf::get_bool(o, "lstrip", at, false);
            t.rstrip = hf::get_bool(o, "rstrip", at, false);
            t.single_word = hf::get_bool(o, "single_word", at, false);
            if (t.special) special_.insert(t.content);
            added_.add(std::move(t));
        }
        for (std::size_t i = 0; i < added_.all().size(); ++i) added_by_id_[added_.all()[i].id] = i;
    }

    // tokenizer_config.json, when beside it: decoding's clean-up of spaces
    // (transformers' default: on), more special tokens to skip, and BOS/EOS.
    void read_config(const fs::path& file) {
        std::error_code ec;
        if (!fs::is_regular_file(file, ec)) return;
        const std::string name = file.string();
        const json::value doc = parse_json(read_file(file, {}), name, {});
        const json::object& o = hf::as_object(doc, name + ":");
        clean_up_ = hf::get_bool(o, "clean_up_tokenization_spaces", name + ":", true);
        if (const json::value* extra = hf::member(o, "additional_special_tokens"); extra && extra->is_array()) {
            for (const json::value& t : extra->get_array())
                if (const auto text = token_text(t)) special_.insert(*text);
        }
        read_bos_eos(o, name);
    }

    // Hugging Face transformers' Llama and Gemma tokenizer classes replace the
    // file's post-processor by BOS and EOS as add_bos_token (default on) and
    // add_eos_token (default off) say, and servers load them that way: DeepSeek
    // V3's file adds nothing and its config asks for BOS. transformers.js keeps
    // the file's; the reference harness follows transformers.
    void read_bos_eos(const json::object& o, const std::string& name) {
        const json::value* cls = hf::member(o, "tokenizer_class");
        if (!cls || !cls->is_string()) return;
        const std::string_view c = cls->get_string();
        if (c != "LlamaTokenizer" && c != "LlamaTokenizerFast" && c != "GemmaTokenizer" && c != "GemmaTokenizerFast")
            return;
        const auto special_id = [&](std::string_view key) {
            const json::value* v = hf::member(o, key);
            const auto text = v ? token_text(*v) : std::nullopt;
            const auto id = text ? id_of(*text) : std::nullopt;
            if (!id) throw std::runtime_error(name + ": " + std::string(key) + " is asked for but has no id");
            return *id;
        };
        std::vector<std::int32_t> before, after;
        if (hf::get_bool(o, "add_bos_token", name + ":", true)) before.push_back(special_id("bos_token"));
        if (hf::get_bool(o, "add_eos_token", name + ":", false)) after.push_back(special_id("eos_token"));
        post_.emplace(std::move(before), std::move(after));
    }

    // A special token as tokenizer_config.json writes one: its text, or {"content": text}.
    static std::optional<std::string> token_text(const json::value& t) {
        if (t.is_string()) return std::string(t.get_string());
        if (t.is_object() && t.get_object().contains("content") && t.get_object().at("content").is_string())
            return std::string(t.get_object().at("content").get_string());
        return std::nullopt;
    }

    std::string name_;
    std::unique_ptr<hf::model> model_;
    std::unique_ptr<hf::normalizer> normalizer_;
    std::unique_ptr<hf::pre_tokenizer> pre_tokenizer_;
    std::unique_ptr<hf::decoder> decoder_;
    std::optional<hf::post_processor> post_;
    hf::added_tokens added_;
    std::unordered_map<std::int32_t, std::size_t> added_by_id_;
    std::unordered_set<std::string> special_;
    std::string end_of_word_suffix_;
    bool clean_up_ = true;
    std::size_t vocab_size_ = 0;
};

}  // namespace

std::string hf_tokenizer_file(const std::string& path) {
    std::error_code ec;
    return fs::is_directory(path, ec) ? (fs::path(path) / "tokenizer.json").string() : path;
}

std::unique_ptr<local_tokenizer> load_hf_tokenizer(const std::string& path, const std::stop_token& stop) {
    const fs::path file = hf_tokenizer_file(path);
    std::error_code ec;
    if (!fs::is_regular_file(file, ec)) throw std::runtime_error(file.string() + ": no such file");
    return std::make_unique<hf_tokenizer>(file, file.string(), stop);
}

}  // namespace openloop
