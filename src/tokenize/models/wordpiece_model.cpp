#include "openloop/tokenize/models/wordpiece_model.hpp"

#include "openloop/base/stop_point.hpp"
#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

#include <stdexcept>
#include <unordered_map>

namespace openloop::hf {

namespace json = boost::json;

namespace {

// Code points of UTF-8 text (continuation bytes not counted).
std::size_t code_points(std::string_view text) {
    std::size_t n = 0;
    for (char c : text) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    return n;
}

bool char_boundary(std::string_view text, std::size_t at) {
    return at == text.size() || (static_cast<unsigned char>(text[at]) & 0xC0) != 0x80;
}

class wordpiece_model final : public model {
public:
    wordpiece_model(std::unordered_map<std::string, std::int32_t> ids, std::string unk_token, std::string prefix,
                    std::size_t max_chars)
        : ids_(std::move(ids)), unk_token_(std::move(unk_token)), prefix_(std::move(prefix)), max_chars_(max_chars) {
        for (const auto& [token, id] : ids_) {
            if (std::size_t(id) >= tokens_.size()) tokens_.resize(std::size_t(id) + 1);
            tokens_[std::size_t(id)] = token;
        }
    }

    void encode(std::string_view word, std::vector<std::int32_t>& ids) const override {
        if (word.empty()) return;
        const std::size_t mark = ids.size();
        if (code_points(word) <= max_chars_ && greedy(word, ids)) return;
        ids.resize(mark);
        const auto unk = token_id(unk_token_);
        if (!unk) throw std::runtime_error("WordPiece model: unk_token \"" + unk_token_ + "\" is not in its vocab");
        ids.push_back(*unk);
    }

    std::optional<std::int32_t> token_id(std::string_view token) const override {
        const auto it = ids_.find(std::string(token));
        return it == ids_.end() ? std::nullopt : std::optional(it->second);
    }
    std::string_view token(std::int32_t id) const override {
        return id >= 0 && std::size_t(id) < tokens_.size() ? std::string_view(tokens_[id]) : std::string_view();
    }
    std::size_t vocab_size() const override { return tokens_.size(); }
    std::string_view kind() const override { return "WordPiece"; }

private:
    // Longest match first from each position; false when some position has
    // no match (the whole word is then unk_token).
    bool greedy(std::string_view word, std::vector<std::int32_t>& ids) const {
        std::string candidate;
        for (std::size_t start = 0; start < word.size();) {
            std::optional<std::int32_t> found;
            std::size_t end = word.size();
            for (; end > start; --end) {
                if (!char_boundary(word, end)) continue;
                candidate.assign(start > 0 ? prefix_ : std::string());
                candidate.append(word.substr(start, end - start));
                if ((found = token_id(candidate))) break;
            }
            if (!found) return false;
            ids.push_back(*found);
            start = end;
        }
        return true;
    }

    std::unordered_map<std::string, std::int32_t> ids_;
    std::vector<std::string> tokens_;  // by id; ids the vocab skips are empty
    std::string unk_token_;
    std::string prefix_;
    std::size_t max_chars_;
};

}  // namespace

std::unique_ptr<model> make_wordpiece_model(const json::object& o, const std::string& json_path,
                                            const std::stop_token& stop) {
    const json::value* vocab = member(o, "vocab");
    if (vocab == nullptr) json_error(json_path + ".vocab", "is missing");
    const json::object& entries = as_object(*vocab, json_path + ".vocab");
    std::unordered_map<std::string, std::int32_t> ids;
    std::size_t entry = 0;
    for (const auto& [token, id_value] : entries) {
        stop_point(stop, entry++);
        const std::string at = json_path + ".vocab[\"" + std::string(token) + "\"]";
        if (!id_value.is_int64() && !id_value.is_uint64()) json_error(at, "is not an integer id");
        const auto id = id_value.to_number<std::int64_t>();
        // Ids index a table: one far past the vocabulary's size is a broken
        // file, not a reason to allocate gigabytes.
        if (id < 0 || id >= std::int64_t(entries.size()) + (1 << 20))
            json_error(at, std::to_string(id) + " is out of range");
        ids[std::string(token)] = std::int32_t(id);
    }
    const std::int64_t max_chars = get_int(o, "max_input_chars_per_word", json_path, 100);
    if (max_chars < 0) json_error(json_path + ".max_input_chars_per_word", "is negative");
    return std::make_unique<wordpiece_model>(std::move(ids), get_string(o, "unk_token", json_path, "[UNK]"),
                                             get_string(o, "continuing_subword_prefix", json_path, "##"),
                                             std::size_t(max_chars));
}

}  // namespace openloop::hf
