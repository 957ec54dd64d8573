#include "openloop/tokenize/pre_tokenizers/bert_pre_tokenizer.hpp"

#include <unicode/uchar.h>
#include <unicode/utf8.h>

namespace openloop::hf {

namespace {

// Rust's char::is_ascii_punctuation (which takes in $+<=>^`|~, symbols to
// Unicode) or a Unicode punctuation category (P*).
bool is_bert_punctuation(UChar32 c) {
    const bool ascii = (c >= 0x21 && c <= 0x2F) || (c >= 0x3A && c <= 0x40) || (c >= 0x5B && c <= 0x60) ||
                       (c >= 0x7B && c <= 0x7E);
    return ascii || u_ispunct(c);
}

class bert_pre_tokenizer final : public pre_tokenizer {
public:
    void split(std::vector<piece>& pieces) const override {
        std::vector<piece> out;
        for (const piece& p : pieces) {
            const auto* s = reinterpret_cast<const std::uint8_t*>(p.text.data());
            const auto n = std::int32_t(p.text.size());
            std::int32_t word = 0;  // where the word being read began
            const auto cut = [&](std::int32_t from, std::int32_t to) {
                if (to > from) out.push_back({p.text.substr(std::size_t(from), std::size_t(to - from)), p.at_start && from == 0});
            };
            for (std::int32_t i = 0; i < n;) {
                const std::int32_t at = i;
                UChar32 c;
                U8_NEXT(s, i, n, c);
                if (c >= 0 && u_isUWhiteSpace(c)) {
                    cut(word, at);
                    word = i;
                } else if (c >= 0 && is_bert_punctuation(c)) {
                    cut(word, at);
                    cut(at, i);
                    word = i;
                }
            }
            cut(word, n);
        }
        pieces = std::move(out);
    }
};

}  // namespace

std::unique_ptr<pre_tokenizer> make_bert_pre_tokenizer(const boost::json::object&, const std::string&) {
    return std::make_unique<bert_pre_tokenizer>();
}

}  // namespace openloop::hf
