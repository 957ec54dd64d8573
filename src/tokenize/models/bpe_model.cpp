#include "openloop/tokenize/models/bpe_model.hpp"

#include "openloop/base/stop_point.hpp"
#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/models/bpe_merge.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <unordered_map>
#include <unordered_set>

namespace openloop::hf {

namespace json = boost::json;

namespace {

// Lets the cache be searched with a piece's string_view.
struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};

std::uint64_t pair_key(std::int32_t a, std::int32_t b) {
    return (std::uint64_t(std::uint32_t(a)) << 32) | std::uint32_t(b);
}

class bpe_model final : public model {
public:
    bpe_model(const json::object& o, const std::string& path, const std::stop_token& stop) {
        read_vocab(get_object(o, "vocab", path), path + ".vocab", stop);
        read_merges(get_array(o, "merges", path), path + ".merges", stop);
        if (const auto unk = get_optional_string(o, "unk_token", path)) unk_id_ = token_id(*unk);
        fuse_unk_ = get_bool(o, "fuse_unk", path, false);
        byte_fallback_ = get_bool(o, "byte_fallback", path, false);
        ignore_merges_ = get_bool(o, "ignore_merges", path, false);
        suffix_ = get_string(o, "end_of_word_suffix", path);
        if (byte_fallback_) {
            for (int b = 0; b < 256; ++b) {
                char name[8];
                std::snprintf(name, sizeof name, "<0x%02X>", b);
                byte_ids_[b] = token_id(name).value_or(-1);
            }
        }
    }

    void encode(std::string_view piece, std::vector<std::int32_t>& ids) const override {
        if (piece.empty()) return;
        if (ignore_merges_) {
            if (auto id = token_id(piece)) {
                ids.push_back(*id);
                return;
            }
        }
        const std::size_t first = ids.size();
        encode_cached(piece, ids);
        if (fuse_unk_ && unk_id_) {
            // Runs of <unk> become one, as transformers.js fuses them.
            const auto kept = std::unique(ids.begin() + std::ptrdiff_t(first), ids.end(),
                                          [&](std::int32_t a, std::int32_t b) { return a == *unk_id_ && b == *unk_id_; });
            ids.erase(kept, ids.end());
        }
    }

    std::optional<std::int32_t> token_id(std::string_view token) const override {
        auto it = ids_.find(token);
        if (it == ids_.end()) return std::nullopt;
        return it->second;
    }
    std::string_view token(std::int32_t id) const override {
        return id >= 0 && std::size_t(id) < tokens_.size() ? std::string_view(tokens_[std::size_t(id)]) : std::string_view{};
    }
    std::size_t vocab_size() const override { return tokens_.size(); }
    std::string_view kind() const override { return "BPE"; }

private:
    static constexpr std::size_t cache_limit = 1 << 16;
    static constexpr std::int64_t max_token_id = 1 << 24;
    // From this many characters a word is cut where no merge can cross.
    static constexpr std::size_t segment_from = 64;

    static const json::object& get_object(const json::object& o, std::string_view key, const std::string& path) {
        const json::value* v = member(o, key);
        if (v == nullptr) json_error(path + "." + std::string(key), "is missing");
        return as_object(*v, path + "." + std::string(key));
    }

    void read_vocab(const json::object& vocab, const std::string& path, const std::stop_token& stop) {
        std::size_t size = 0, entry = 0;
        for (const auto& kv : vocab) {
            stop_point(stop, entry++);
            const std::int64_t id = kv.value().is_int64() ? kv.value().get_int64() : -1;
            // Ids are dense: one far beyond any vocabulary would only cost memory.
            if (id < 0 || id >= max_token_id)
                json_error(path + "[\"" + std::string(kv.key()) + "\"]", "is not a token id (0 to 16777215)");
            size = std::max(size, std::size_t(id) + 1);
        }
        tokens_.resize(size);
        for (const auto& kv : vocab) {
            stop_point(stop, entry++);
            tokens_[std::size_t(kv.value().get_int64())] = std::string(kv.key());
        }
        // Of two entries with one id, the later names it (tokens_), and only it has that id.
        ids_.reserve(vocab.size());
        for (const auto& kv : vocab) {
            stop_point(stop, entry++);
            ids_.emplace(tokens_[std::size_t(kv.value().get_int64())], std::int32_t(kv.value().get_int64()));
        }
    }

    void read_merges(const json::array& merges, const std::string& path, const std::stop_token& stop) {
        merges_.reserve(merges.size());
        std::string merged;
        for (std::size_t i = 0; i < merges.size(); ++i) {
            stop_point(stop, i);
            std::string_view a, b;
            const json::value& m = merges[i];
            if (m.is_string()) {
                // "a b"; JavaScript's split(" ", 2) keeps the first two fields.
                const std::string_view s = m.get_string();
                const std::size_t space = s.find(' ');
                if (space == std::string_view::npos)
                    json_error(path + "[" + std::to_string(i) + "]", "is not a merge \"a b\"");
                a = s.substr(0, space);
                b = s.substr(space + 1);
                b = b.substr(0, b.find(' '));
            } else if (m.is_array() && m.get_array().size() == 2 && m.get_array()[0].is_string() &&
                       m.get_array()[1].is_string()) {
                a = m.get_array()[0].get_string();
                b = m.get_array()[1].get_string();
            } else {
                json_error(path + "[" + std::to_string(i) + "]", "is neither \"a b\" nor [\"a\", \"b\"]");
            }
            const auto ia = token_id(a), ib = token_id(b);
            merged.assign(a);
            merged += b;
            const auto im = token_id(merged);
            // A merge outside the vocabulary can never apply to ids; the
            // first of a repeated pair ranks.
            if (ia && ib && im) merges_.emplace(pair_key(*ia, *ib), bpe::merge_rank{std::uint32_t(i), *im});
        }
    }

    void encode_cached(std::string_view word, std::vector<std::int32_t>& ids) const {
        // Long words rarely repeat; caching them would only churn.
        const bool cacheable = word.size() < 256;
        if (cacheable) {
            std::lock_guard lock(cache_mutex_);
            if (auto it = cache_.find(word); it != cache_.end()) {
                ids.insert(ids.end(), it->second.begin(), it->second.end());
                return;
            }
        }
        const std::size_t first = ids.size();
        encode_word(word, ids);
        if (cacheable) {
            std::lock_guard lock(cache_mutex_);
            if (cache_.size() >= cache_limit) cache_.clear();
            cache_.emplace(std::string(word), std::vector<std::int32_t>(ids.begin() + std::ptrdiff_t(first), ids.end()));
        }
    }

    void encode_word(std::string_view word, std::vector<std::int32_t>& ids) const {
        std::vector<bpe::part> parts;
        std::vector<char32_t> chars;
        std::string with_suffix;
        if (!suffix_.empty()) {
            with_suffix.assign(word);
            with_suffix += suffix_;
            word = with_suffix;
        }
        const std::size_t body = word.size() - suffix_.size();
        for (std::size_t pos = 0; pos < body;) {
            std::size_t n = utf8::sequence_length(word, pos);
            chars.push_back(n == 0 ? 0xFFFD : utf8::decode(word, pos, n));
            if (n == 0) n = 1;
            // The suffix belongs to the last character.
            const std::size_t end = pos + n >= body ? word.size() : pos + n;
            parts.push_back({std::uint32_t(pos), std::uint32_t(end), token_id(word.substr(pos, end - pos)).value_or(-1)});
            pos = end;
        }
        if (parts.size() >= segment_from && suffix_.empty() && encode_segments(word, parts, chars, ids)) return;
        bpe::merge(parts, [this](const bpe::part& l, const bpe::part& r) {
            if (l.id < 0 || r.id < 0) return bpe::merge_rank{};
            auto it = merges_.find(pair_key(l.id, r.id));
            return it == merges_.end() ? bpe::merge_rank{} : it->second;
        });
        for (const bpe::part& p : parts) {
            if (p.id >= 0) ids.push_back(p.id);
            else if (!(byte_fallback_ && push_bytes(word.substr(p.start, p.end - p.start), ids)) && unk_id_)
                ids.push_back(*unk_id_);
            // else: no unknown token, and the part has no id
        }
    }

    // A long word (a whole text, for a tokenizer without a pre-tokenizer)
    // cut where no token of the vocabulary has the two characters side by
    // side: no merge can cross such a cut, so the pieces merge on their own,
    // each cached, with the same result. False when there is no such cut.
    bool encode_segments(std::string_view word, const std::vector<bpe::part>& parts, const std::vector<char32_t>& chars,
                         std::vector<std::int32_t>& ids) const {
        std::call_once(bigrams_once_, [this] {
            for (const std::string& t : tokens_) {
                char32_t prev = 0;
                for (std::size_t pos = 0; pos < t.size();) {
                    const std::size_t n = utf8::sequence_length(t, pos);
                    const char32_t c = n == 0 ? 0xFFFD : utf8::decode(t, pos, n);
                    if (pos > 0) bigrams_.insert((std::uint64_t(prev) << 32) | c);
                    prev = c;
                    pos += n == 0 ? 1 : n;
                }
            }
        });
        std::vector<std::size_t> cuts;
        for (std::size_t i = 1; i < parts.size(); ++i)
            if (!bigrams_.contains((std::uint64_t(chars[i - 1]) << 32) | chars[i])) cuts.push_back(parts[i].start);
        if (cuts.empty()) return false;
        std::size_t start = 0;
        cuts.push_back(word.size());
        for (const std::size_t cut : cuts) {
            encode_cached(word.substr(start, cut - start), ids);
            start = cut;
        }
        return true;
    }

    bool push_bytes(std::string_view text, std::vector<std::int32_t>& ids) const {
        for (const char c : text)
            if (byte_ids_[static_cast<unsigned char>(c)] < 0) return false;
        for (const char c : text) ids.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        return true;
    }

    std::vector<std::string> tokens_;
    std::unordered_map<std::string_view, std::int32_t> ids_;
    std::unordered_map<std::uint64_t, bpe::merge_rank> merges_;
    std::optional<std::int32_t> unk_id_;
    bool fuse_unk_ = false, byte_fallback_ = false, ignore_merges_ = false;
    std::string suffix_;
    std::int32_t byte_ids_[256] = {};

    mutable std::once_flag bigrams_once_;
    mutable std::unordered_set<std::uint64_t> bigrams_;  // adjacent characters inside some token
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<std::int32_t>, string_hash, std::equal_to<>> cache_;
};

}  // namespace

std::unique_ptr<model> make_bpe_model(const json::object& o, const std::string& path, const std::stop_token& stop) {
    return std::make_unique<bpe_model>(o, path, stop);
}

}  // namespace openloop::hf
