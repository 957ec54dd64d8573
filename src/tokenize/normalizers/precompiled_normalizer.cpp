#include "openloop/tokenize/normalizers/precompiled_normalizer.hpp"

#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

#include <unicode/ubrk.h>
#include <unicode/utext.h>
#include <unicode/utf8.h>

#include <array>
#include <optional>
#include <stdexcept>

namespace openloop::hf {

namespace json = boost::json;

namespace {

std::optional<std::string> base64_decode(std::string_view text) {
    static constexpr std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::array<int, 256> value;
    value.fill(-1);
    for (std::size_t i = 0; i < alphabet.size(); ++i) value[static_cast<unsigned char>(alphabet[i])] = int(i);
    while (!text.empty() && text.back() == '=') text.remove_suffix(1);
    std::string out;
    out.reserve(text.size() * 3 / 4);
    std::uint32_t bits = 0;
    int count = 0;
    for (char c : text) {
        const int v = value[static_cast<unsigned char>(c)];
        if (v < 0) return std::nullopt;
        bits = (bits << 6) | std::uint32_t(v);
        if (++count == 4) {
            out += char(bits >> 16);
            out += char(bits >> 8);
            out += char(bits);
            bits = 0;
            count = 0;
        }
    }
    if (count == 1) return std::nullopt;
    if (count == 2) out += char(bits >> 4);
    if (count == 3) {
        out += char(bits >> 10);
        out += char(bits >> 2);
    }
    return out;
}

// SentencePiece's compiled rules: a darts-clone double array (32-bit units)
// whose leaves hold offsets into a blob of NUL-terminated replacements.
class charsmap {
public:
    // Throws std::runtime_error saying what is wrong with blob.
    explicit charsmap(const std::string& blob) {
        if (blob.size() < 4) throw std::runtime_error("is shorter than its header");
        const std::uint32_t trie_bytes = le32(blob.data());
        if (trie_bytes % 4 != 0 || trie_bytes > blob.size() - 4 || trie_bytes == 0)
            throw std::runtime_error("has a trie size that does not fit it");
        units_.resize(trie_bytes / 4);
        for (std::size_t i = 0; i < units_.size(); ++i) units_[i] = le32(blob.data() + 4 + 4 * i);
        replacements_ = blob.substr(4 + trie_bytes);
    }

    // What key becomes, per HF's spm_precompiled: of the rules matching a
    // prefix of key, the shortest; nullopt when none does.
    std::optional<std::string_view> transform(std::string_view key) const {
        std::size_t pos = offset(units_[0]);
        for (char ch : key) {
            const auto c = static_cast<unsigned char>(ch);
            if (c == 0) break;
            pos ^= c;
            if (pos >= units_.size() || label(units_[pos]) != c) return std::nullopt;
            const std::uint32_t unit = units_[pos];
            pos ^= offset(unit);
            if (pos >= units_.size()) return std::nullopt;
            if ((unit >> 8) & 1) {  // has a leaf: its value is the replacement's offset
                const std::size_t at = units_[pos] & 0x7FFFFFFFu;
                if (at >= replacements_.size()) return std::nullopt;
                const std::size_t end = replacements_.find('\0', at);
                return std::string_view(replacements_).substr(at, end == std::string::npos ? end : end - at);
            }
        }
        return std::nullopt;
    }

private:
    // The blob's numbers are little-endian whatever the host.
    static std::uint32_t le32(const char* p) {
        const auto* b = reinterpret_cast<const unsigned char*>(p);
        return std::uint32_t(b[0]) | std::uint32_t(b[1]) << 8 | std::uint32_t(b[2]) << 16 | std::uint32_t(b[3]) << 24;
    }
    static std::uint32_t label(std::uint32_t unit) { return unit & ((1u << 31) | 0xFFu); }
    static std::size_t offset(std::uint32_t unit) { return (unit >> 10) << ((unit & (1u << 9)) >> 6); }

    std::vector<std::uint32_t> units_;
    std::string replacements_;
};

class precompiled_normalizer final : public normalizer {
public:
    explicit precompiled_normalizer(charsmap map) : map_(std::move(map)) {}

    // HF's order, which it says matches SentencePiece on XNLI in every
    // language: a grapheme cluster under 6 bytes is looked up whole; else,
    // or when not found, each of its characters is. A charsmap's replacements
    // can be long: past limit the text is cut short, and refused.
    void apply(std::string& text, std::size_t limit) const override {
        UErrorCode err = U_ZERO_ERROR;
        UText* ut = utext_openUTF8(nullptr, text.data(), std::int64_t(text.size()), &err);
        UBreakIterator* graphemes = ubrk_open(UBRK_CHARACTER, "", nullptr, 0, &err);
        ubrk_setUText(graphemes, ut, &err);
        if (U_FAILURE(err)) {
            ubrk_close(graphemes);
            utext_close(ut);
            throw std::runtime_error(std::string("Precompiled normalizer: ICU grapheme breaks: ") + u_errorName(err));
        }
        std::string out;
        out.reserve(text.size());
        for (std::int32_t start = ubrk_first(graphemes), end = ubrk_next(graphemes); end != UBRK_DONE && out.size() <= limit;
             start = end, end = ubrk_next(graphemes)) {
            const std::string_view cluster(text.data() + start, std::size_t(end - start));
            if (cluster.size() < 6) {
                if (const auto norm = map_.transform(cluster)) {
                    out += *norm;
                    continue;
                }
            }
            for (std::size_t i = 0; i < cluster.size();) {
                std::size_t next = i + 1;
                while (next < cluster.size() && U8_IS_TRAIL(static_cast<unsigned char>(cluster[next]))) ++next;
                const std::string_view ch = cluster.substr(i, next - i);
                const auto norm = map_.transform(ch);
                out += norm ? *norm : ch;
                i = next;
            }
        }
        ubrk_close(graphemes);
        utext_close(ut);
        text = std::move(out);
    }

private:
    charsmap map_;
};

}  // namespace

std::unique_ptr<normalizer> make_precompiled_normalizer(const json::object& o, const std::string& json_path) {
    const std::string at = json_path + ".precompiled_charsmap";
    const auto encoded = get_optional_string(o, "precompiled_charsmap", json_path);
    if (!encoded) json_error(at, "is missing");
    const auto blob = base64_decode(*encoded);
    if (!blob) json_error(at, "is not base64");
    try {
        return std::make_unique<precompiled_normalizer>(charsmap(*blob));
    } catch (const std::runtime_error& e) {
        json_error(at, e.what());
    }
}

}  // namespace openloop::hf
