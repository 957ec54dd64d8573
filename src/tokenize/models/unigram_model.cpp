#include "openloop/tokenize/models/unigram_model.hpp"

#include "openloop/base/stop_point.hpp"
#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <unordered_map>

namespace openloop::hf {

namespace json = boost::json;

namespace {

// A byte trie of the vocabulary whose nodes keep their children side by side,
// sorted by byte: a walk from a position of the text meets every piece that
// starts there, shortest first (the lattice's edges), with one binary search
// per byte and no map per node (XLM-R's 250 k pieces stay a few MB).
class piece_trie {
public:
    // id_of(piece) is the piece's id (the last of duplicates, as the lookup's).
    template <class IdOf>
    piece_trie(const std::vector<std::string>& pieces, IdOf id_of, const std::stop_token& stop) {
        std::vector<std::uint32_t> order;
        for (std::uint32_t i = 0; i < pieces.size(); ++i)
            if (!pieces[i].empty()) order.push_back(i);
        // std::string compares bytes as unsigned, the children's order.
        std::sort(order.begin(), order.end(), [&](auto a, auto b) { return pieces[a] < pieces[b]; });
        struct span {
            std::uint32_t node, lo, hi, depth;
        };
        nodes_.push_back({});
        std::vector<span> todo{{0, 0, std::uint32_t(order.size()), 0}};
        for (std::size_t t = 0; t < todo.size(); ++t) {
            stop_point(stop, t);
            auto [n, lo, hi, depth] = todo[t];
            // The keys of [lo, hi) share depth bytes; one that ends here sorts first.
            while (lo < hi && pieces[order[lo]].size() == depth) nodes_[n].id = id_of(pieces[order[lo++]]);
            nodes_[n].first = std::uint32_t(nodes_.size());
            while (lo < hi) {
                const auto byte = static_cast<unsigned char>(pieces[order[lo]][depth]);
                std::uint32_t end = lo;
                while (end < hi && static_cast<unsigned char>(pieces[order[end]][depth]) == byte) ++end;
                todo.push_back({std::uint32_t(nodes_.size()), lo, end, depth + 1});
                nodes_.push_back({.label = byte});
                ++nodes_[n].count;
                lo = end;
            }
        }
    }

    // Calls f(length, id) for each vocabulary piece that text starts with.
    template <class F>
    void for_each_prefix(std::string_view text, F f) const {
        std::uint32_t n = 0;
        for (std::size_t i = 0; i < text.size(); ++i) {
            const auto first = nodes_.begin() + nodes_[n].first;
            const auto last = first + nodes_[n].count;
            const auto byte = static_cast<unsigned char>(text[i]);
            const auto child = std::lower_bound(first, last, byte, [](const node& a, unsigned char b) { return a.label < b; });
            if (child == last || child->label != byte) return;
            n = std::uint32_t(child - nodes_.begin());
            if (child->id >= 0) f(i + 1, child->id);
        }
    }

private:
    struct node {
        std::uint32_t first = 0;  // children: nodes_[first, first + count)
        std::uint32_t count = 0;
        std::int32_t id = -1;  // the piece that ends here, or -1
        unsigned char label = 0;
    };
    std::vector<node> nodes_;
};

// The bytes of the UTF-8 character at text[at]; 1 for a stray byte.
std::size_t char_length(std::string_view text, std::size_t at) {
    const auto b = static_cast<unsigned char>(text[at]);
    const std::size_t n = b < 0xC0 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    return std::min(n, text.size() - at);
}

class unigram_model final : public model {
public:
    unigram_model(std::vector<std::string> pieces, std::vector<double> scores, std::optional<std::int32_t> unk_id,
                  bool byte_fallback, const std::stop_token& stop)
        : pieces_(std::move(pieces)),
          scores_(std::move(scores)),
          ids_(index(pieces_, stop)),
          trie_(pieces_, [this](const std::string& p) { return ids_.at(p); }, stop),
          unk_id_(unk_id),
          byte_fallback_(byte_fallback) {
        // Unknown characters score far below any piece (HF tokenizers' and
        // SentencePiece's kUnkPenalty), so they are chosen only when no piece
        // covers the character.
        unk_score_ = *std::min_element(scores_.begin(), scores_.end()) - 10.0;
        for (int b = 0; b < 256; ++b) {
            char name[8];
            std::snprintf(name, sizeof name, "<0x%02X>", b);
            const auto it = ids_.find(name);
            byte_ids_[b] = it == ids_.end() ? -1 : it->second;
        }
    }

    void encode(std::string_view text, std::vector<std::int32_t>& ids) const override;

    std::optional<std::int32_t> token_id(std::string_view token) const override {
        const auto it = ids_.find(token);
        return it == ids_.end() ? std::nullopt : std::optional(it->second);
    }
    std::string_view token(std::int32_t id) const override {
        return id >= 0 && std::size_t(id) < pieces_.size() ? std::string_view(pieces_[id]) : std::string_view();
    }
    std::size_t vocab_size() const override { return pieces_.size(); }
    std::string_view kind() const override { return "Unigram"; }

private:
    static std::unordered_map<std::string_view, std::int32_t> index(const std::vector<std::string>& pieces,
                                                                     const std::stop_token& stop) {
        std::unordered_map<std::string_view, std::int32_t> ids;
        ids.reserve(pieces.size());
        for (std::size_t i = 0; i < pieces.size(); ++i) {
            stop_point(stop, i);
            ids[pieces[i]] = std::int32_t(i);
        }
        return ids;
    }
    void emit_unknown(std::string_view text, std::vector<std::int32_t>& ids) const;

    std::vector<std::string> pieces_;
    std::vector<double> scores_;
    std::unordered_map<std::string_view, std::int32_t> ids_;  // views into pieces_
    piece_trie trie_;
    std::optional<std::int32_t> unk_id_;
    bool byte_fallback_;
    double unk_score_ = 0;
    std::array<std::int32_t, 256> byte_ids_{};  // the "<0xXX>" pieces, -1 where absent
};

constexpr std::int32_t unknown = -1;  // a lattice edge of an unknown character

void unigram_model::encode(std::string_view text, std::vector<std::int32_t>& ids) const {
    // The best path to each byte position, forward: an edge replaces the best
    // only when strictly better, so of equal paths the one whose last piece
    // starts earliest wins (the reference lattice's order).
    struct best {
        double score = 0;
        std::int32_t start = -1;
        std::int32_t id = unknown;
    };
    std::vector<best> path(text.size() + 1);
    path[0].start = 0;
    const auto offer = [&](std::size_t end, double score, std::size_t start, std::int32_t id) {
        if (path[end].start < 0 || score > path[end].score) path[end] = {score, std::int32_t(start), id};
    };
    for (std::size_t at = 0; at < text.size();) {
        const std::size_t mblen = char_length(text, at);
        const double base = path[at].score;
        bool covered = false;
        trie_.for_each_prefix(text.substr(at), [&](std::size_t length, std::int32_t id) {
            offer(at + length, base + scores_[id], at, id);
            covered = covered || length == mblen;
        });
        if (!covered) offer(at + mblen, base + unk_score_, at, unknown);
        at += mblen;
    }
    // Back from the end; a run of unknown characters (or unk pieces) becomes
    // one segment (HF's fuse_unk, always on for Unigram).
    struct segment {
        std::size_t start, end;
        std::int32_t id;
    };
    std::vector<segment> segments;
    const auto is_unk = [&](std::int32_t id) { return id == unknown || (unk_id_ && id == *unk_id_); };
    for (std::size_t end = text.size(); end > 0;) {
        const best& b = path[end];
        if (is_unk(b.id) && !segments.empty() && is_unk(segments.back().id))
            segments.back() = {std::size_t(b.start), segments.back().end, unknown};
        else
            segments.push_back({std::size_t(b.start), end, is_unk(b.id) ? unknown : b.id});
        end = std::size_t(b.start);
    }
    for (auto s = segments.rbegin(); s != segments.rend(); ++s) {
        if (s->id != unknown)
            ids.push_back(s->id);
        else
            emit_unknown(text.substr(s->start, s->end - s->start), ids);
    }
}

// An unknown segment: the piece its text is, if any (a fused run's text is
// looked up whole, as HF does); else its bytes as <0xXX> pieces when
// byte_fallback has them all; else unk_id.
void unigram_model::emit_unknown(std::string_view text, std::vector<std::int32_t>& ids) const {
    if (const auto it = ids_.find(text); it != ids_.end()) {
        ids.push_back(it->second);
        return;
    }
    if (byte_fallback_ && std::all_of(text.begin(), text.end(), [&](char c) { return byte_ids_[static_cast<unsigned char>(c)] >= 0; })) {
        for (char c : text) ids.push_back(byte_ids_[static_cast<unsigned char>(c)]);
        return;
    }
    if (!unk_id_) throw std::runtime_error("Unigram model: the text has a character its vocabulary lacks, and unk_id is null");
    ids.push_back(*unk_id_);
}

}  // namespace

std::unique_ptr<model> make_unigram_model(const json::object& o, const std::string& json_path,
                                          const std::stop_token& stop) {
    const json::array& vocab = get_array(o, "vocab", json_path);
    if (vocab.empty()) json_error(json_path + ".vocab", "is empty");
    std::vector<std::string> pieces;
    std::vector<double> scores;
    pieces.reserve(vocab.size());
    scores.reserve(vocab.size());
    for (std::size_t i = 0; i < vocab.size(); ++i) {
        stop_point(stop, i);
        const json::array* pair = vocab[i].if_array();
        if (pair == nullptr || pair->size() != 2 || !(*pair)[0].is_string() || !(*pair)[1].is_number())
            json_error(json_path + ".vocab[" + std::to_string(i) + "]", "is not a [piece, score] pair");
        pieces.emplace_back((*pair)[0].get_string());
        scores.push_back((*pair)[1].to_number<double>());
    }
    std::optional<std::int32_t> unk_id;
    if (member(o, "unk_id") != nullptr) {
        const std::int64_t id = get_int(o, "unk_id", json_path, 0);
        if (id < 0 || std::size_t(id) >= pieces.size())
            json_error(json_path + ".unk_id", std::to_string(id) + " is not an index of model.vocab");
        unk_id = std::int32_t(id);
    }
    const bool byte_fallback = get_bool(o, "byte_fallback", json_path, false);
    return std::make_unique<unigram_model>(std::move(pieces), std::move(scores), unk_id, byte_fallback, stop);
}

}  // namespace openloop::hf
