// load_tiktoken: a .tiktoken rank file with the pattern and special tokens of
// the encoding its name names; a piece of the pattern that is not one token
// is merged by rank (bpe_merge), as tiktoken does.

#include "openloop/base/stop_point.hpp"
#include "openloop/tokenize/local_tokenizer.hpp"
#include "openloop/tokenize/models/bpe_merge.hpp"
#include "openloop/tokenize/text/unicode_regex.hpp"
#include "openloop/tokenize/text/utf8.hpp"

#include <filesystem>
#include <fstream>
#include <mutex>
#include <stdexcept>
#include <unordered_map>
#include <utility>

namespace openloop {

namespace {

struct encoding {
    std::string_view name;
    std::string_view pattern;
    std::vector<std::pair<std::string_view, std::int32_t>> specials;
};

constexpr std::string_view gpt2_pattern =
    "'s|'t|'re|'ve|'m|'ll|'d| ?\\p{L}+| ?\\p{N}+| ?[^\\s\\p{L}\\p{N}]+|\\s+(?!\\S)|\\s+";

// tiktoken's own definitions (tiktoken_ext/openai_public.py).
const std::vector<encoding>& encodings() {
    static const std::vector<encoding> all{
        {"cl100k_base",
         "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|"
         "\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
         {{"<|endoftext|>", 100257},
          {"<|fim_prefix|>", 100258},
          {"<|fim_middle|>", 100259},
          {"<|fim_suffix|>", 100260},
          {"<|endofprompt|>", 100276}}},
        {"o200k_base",
         "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
         "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
         "\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+",
         {{"<|endoftext|>", 199999}, {"<|endofprompt|>", 200018}}},
        {"p50k_base", gpt2_pattern, {{"<|endoftext|>", 50256}}},
        {"r50k_base", gpt2_pattern, {{"<|endoftext|>", 50256}}},
    };
    return all;
}

int base64_value(char c) {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
}

bool base64_decode(std::string_view in, std::string& out) {
    out.clear();
    unsigned bits = 0, value = 0;
    for (const char c : in) {
        if (c == '=') break;
        const int v = base64_value(c);
        if (v < 0) return false;
        value = (value << 6) | unsigned(v);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out += char((value >> bits) & 0xFF);
        }
    }
    return !out.empty();
}

struct string_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
};
using rank_map = std::unordered_map<std::string, std::int32_t, string_hash, std::equal_to<>>;

class tiktoken_tokenizer final : public local_tokenizer {
public:
    tiktoken_tokenizer(const std::string& file, const encoding& enc, const std::stop_token& stop)
        : name_(enc.name), regex_(enc.pattern, regex_dialect::rust, std::string(enc.name)) {
        std::ifstream in(file, std::ios::binary);
        if (!in) throw std::runtime_error(file + ": cannot be read");
        std::string line, bytes;
        for (std::size_t number = 1; std::getline(in, line); ++number) {
            stop_point(stop, number - 1);
            if (line.empty()) continue;
            const std::size_t space = line.find(' ');
            const auto bad = [&](std::string_view what) {
                throw std::runtime_error(file + ":" + std::to_string(number) + ": " + std::string(what) +
                                         " (a line is \"<base64 bytes> <rank>\")");
            };
            if (space == std::string::npos) bad("no rank");
            if (!base64_decode(std::string_view(line).substr(0, space), bytes)) bad("not base64");
            std::int64_t rank = -1;
            try {
                std::size_t used = 0;
                rank = std::stoll(line.substr(space + 1), &used);
                if (used != line.size() - space - 1) rank = -1;
            } catch (const std::exception&) {
            }
            // Ranks are dense: one far beyond any encoding would only cost memory.
            if (rank < 0 || rank >= (1 << 24)) bad("the rank is not a number from 0 to 16777215");
            if (std::size_t(rank) >= tokens_.size()) tokens_.resize(std::size_t(rank) + 1);
            tokens_[std::size_t(rank)] = bytes;
            ranks_.emplace(bytes, std::int32_t(rank));
        }
        if (ranks_.empty()) throw std::runtime_error(file + ": holds no ranks");
        vocab_size_ = tokens_.size();
        for (const auto& [text, id] : enc.specials) {
            specials_.emplace_back(std::string(text), id);
            vocab_size_ = std::max(vocab_size_, std::size_t(id) + 1);
        }
    }

    std::vector<std::int32_t> encode(std::string_view raw, bool) const override {
        const std::string text = utf8::sanitize(raw);
        std::vector<std::int32_t> ids;
        std::size_t pos = 0;
        while (pos < text.size()) {
            // The next special token, all of them allowed; the text before it
            // is ordinary.
            std::size_t next = text.size(), length = 0;
            std::int32_t special = -1;
            for (const auto& [s, id] : specials_) {
                const std::size_t at = text.find(s, pos);
                if (at < next || (at == next && at != text.size() && s.size() > length)) {
                    next = at;
                    length = s.size();
                    special = id;
                }
            }
            encode_ordinary(std::string_view(text).substr(pos, next - pos), ids);
            if (special < 0) break;
            ids.push_back(special);
            pos = next + length;
        }
        return ids;
    }

    std::string decode(std::span<const std::int32_t> ids, bool skip_special) const override {
        std::string bytes;
        for (const std::int32_t id : ids) {
            if (id >= 0 && std::size_t(id) < tokens_.size() && !tokens_[std::size_t(id)].empty()) {
                bytes += tokens_[std::size_t(id)];
                continue;
            }
            for (const auto& [s, sid] : specials_)
                if (sid == id && !skip_special) bytes += s;
        }
        return utf8::sanitize(bytes);
    }

    std::size_t vocab_size() const override { return vocab_size_; }
    std::string description() const override {
        return "tiktoken " + name_ + " (" + std::to_string(vocab_size_) + " tokens)";
    }

private:
    void encode_ordinary(std::string_view text, std::vector<std::int32_t>& ids) const {
        regex_.for_each_match(text, [&](std::size_t s, std::size_t e) { encode_piece(text.substr(s, e - s), ids); });
    }

    void encode_piece(std::string_view piece, std::vector<std::int32_t>& ids) const {
        if (auto it = ranks_.find(piece); it != ranks_.end()) {
            ids.push_back(it->second);
            return;
        }
        const bool cacheable = piece.size() < 256;
        if (cacheable) {
            std::lock_guard lock(cache_mutex_);
            if (auto it = cache_.find(piece); it != cache_.end()) {
                ids.insert(ids.end(), it->second.begin(), it->second.end());
                return;
            }
        }
        std::vector<bpe::part> parts(piece.size());
        for (std::size_t i = 0; i < piece.size(); ++i) {
            auto it = ranks_.find(piece.substr(i, 1));
            parts[i] = {std::uint32_t(i), std::uint32_t(i + 1), it == ranks_.end() ? -1 : it->second};
        }
        // A pair's rank is the rank of the bytes they make together.
        bpe::merge(parts, [&](const bpe::part& l, const bpe::part& r) {
            auto it = ranks_.find(piece.substr(l.start, r.end - l.start));
            return it == ranks_.end() ? bpe::merge_rank{} : bpe::merge_rank{std::uint32_t(it->second), it->second};
        });
        const std::size_t first = ids.size();
        for (const bpe::part& p : parts)
            if (p.id >= 0) ids.push_back(p.id);
        if (cacheable) {
            std::lock_guard lock(cache_mutex_);
            if (cache_.size() >= (1u << 16)) cache_.clear();
            cache_.emplace(std::string(piece), std::vector<std::int32_t>(ids.begin() + std::ptrdiff_t(first), ids.end()));
        }
    }

    std::string name_;
    unicode_regex regex_;
    std::vector<std::string> tokens_;  // by rank
    rank_map ranks_;
    std::vector<std::pair<std::string, std::int32_t>> specials_;
    std::size_t vocab_size_ = 0;
    mutable std::mutex cache_mutex_;
    mutable std::unordered_map<std::string, std::vector<std::int32_t>, string_hash, std::equal_to<>> cache_;
};

}  // namespace

std::unique_ptr<local_tokenizer> load_tiktoken(const std::string& file, const std::stop_token& stop) {
    const std::string stem = std::filesystem::path(file).filename().string();
    for (const encoding& e : encodings())
        if (stem.find(e.name) != std::string::npos) return std::make_unique<tiktoken_tokenizer>(file, e, stop);
    throw std::runtime_error(file + ": the file name names no encoding tiktoken: knows (cl100k_base, o200k_base, "
                             "p50k_base, r50k_base)");
}

}  // namespace openloop
