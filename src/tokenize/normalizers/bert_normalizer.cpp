#include "openloop/tokenize/normalizers/bert_normalizer.hpp"

#include "openloop/tokenize/hf_json.hpp"

#include <boost/json.hpp>

#include <unicode/uchar.h>
#include <unicode/unorm2.h>
#include <unicode/ustring.h>
#include <unicode/utf8.h>

#include <stdexcept>

namespace openloop::hf {

namespace json = boost::json;

namespace {

// Calls f(code point) for each character of UTF-8 text; a malformed
// sequence reads as U+FFFD.
template <class F>
void for_each_char(const std::string& text, F f) {
    const auto* s = reinterpret_cast<const std::uint8_t*>(text.data());
    const auto n = std::int32_t(text.size());
    for (std::int32_t i = 0; i < n;) {
        UChar32 c;
        U8_NEXT(s, i, n, c);
        f(c < 0 ? UChar32(0xFFFD) : c);
    }
}

void append(std::string& out, UChar32 c) {
    std::uint8_t buf[U8_MAX_LENGTH];
    std::int32_t n = 0;
    U8_APPEND_UNSAFE(buf, n, c);
    out.append(reinterpret_cast<const char*>(buf), std::size_t(n));
}

std::u16string to_utf16(const std::string& text) {
    std::u16string out(text.size(), u'\0');
    std::int32_t n = 0;
    UErrorCode err = U_ZERO_ERROR;
    u_strFromUTF8WithSub(out.data(), std::int32_t(out.size()), &n, text.data(), std::int32_t(text.size()), 0xFFFD,
                         nullptr, &err);
    if (U_FAILURE(err)) throw std::runtime_error(std::string("UTF-8 to UTF-16: ") + u_errorName(err));
    out.resize(std::size_t(n));
    return out;
}

std::string to_utf8(const std::u16string& text) {
    std::string out(text.size() * 3, '\0');
    std::int32_t n = 0;
    UErrorCode err = U_ZERO_ERROR;
    u_strToUTF8(out.data(), std::int32_t(out.size()), &n, text.data(), std::int32_t(text.size()), &err);
    if (U_FAILURE(err)) throw std::runtime_error(std::string("UTF-16 to UTF-8: ") + u_errorName(err));
    out.resize(std::size_t(n));
    return out;
}

// Each character lowercased on its own, by the full mapping (U+0130 'İ'
// becomes "i̇", two characters) and without context (a final 'Σ' becomes
// 'σ'): HF's NormalizedString::lowercase maps char by char.
void lowercase_in_place(std::string& text) {
    std::string out;
    out.reserve(text.size());
    for_each_char(text, [&](UChar32 c) {
        UChar in[2];
        std::int32_t n = 0;
        U16_APPEND_UNSAFE(in, n, c);
        UChar lower[8];
        UErrorCode err = U_ZERO_ERROR;
        const std::int32_t m = u_strToLower(lower, 8, in, n, "", &err);
        if (U_FAILURE(err) || m > 8) {
            append(out, c);
            return;
        }
        for (std::int32_t i = 0; i < m;) {
            UChar32 d;
            U16_NEXT_UNSAFE(lower, i, d);
            append(out, d);
        }
    });
    text = std::move(out);
}

// Accents stripped as HF's BertNormalizer does: after NFD, the nonspacing
// marks (Mn) left out.
void drop_nonspacing_marks(std::string& text) {
    std::string out;
    out.reserve(text.size());
    for_each_char(text, [&](UChar32 c) {
        if (u_charType(c) != U_NON_SPACING_MARK) append(out, c);
    });
    text = std::move(out);
}

void nfd(std::string& text) {
    UErrorCode err = U_ZERO_ERROR;
    const UNormalizer2* nfd = unorm2_getNFDInstance(&err);
    const std::u16string in = to_utf16(text);
    std::u16string out(in.size() * 4 + 16, u'\0');
    const std::int32_t n = unorm2_normalize(nfd, in.data(), std::int32_t(in.size()), out.data(),
                                            std::int32_t(out.size()), &err);
    if (U_FAILURE(err)) throw std::runtime_error(std::string("NFD: ") + u_errorName(err));
    out.resize(std::size_t(n));
    text = to_utf8(out);
}

// BERT's "Chinese character": the CJK Unified Ideographs blocks (not kana,
// not Hangul, which are written with spaces), with HF tokenizers' ranges:
// its Extension E starts at U+2B920, not U+2B820 as in BERT's Python.
bool is_chinese_char(UChar32 c) {
    return (c >= 0x4E00 && c <= 0x9FFF) || (c >= 0x3400 && c <= 0x4DBF) || (c >= 0x20000 && c <= 0x2A6DF) ||
           (c >= 0x2A700 && c <= 0x2B73F) || (c >= 0x2B740 && c <= 0x2B81F) || (c >= 0x2B920 && c <= 0x2CEAF) ||
           (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x2F800 && c <= 0x2FA1F);
}

bool is_bert_whitespace(UChar32 c) { return c == '\t' || c == '\n' || c == '\r' || u_isUWhiteSpace(c); }

// Rust's char::is_other (Cc, Cf, Cs, Co, Cn), tab and newlines excepted.
bool is_bert_control(UChar32 c) {
    if (c == '\t' || c == '\n' || c == '\r') return false;
    switch (u_charType(c)) {
    case U_CONTROL_CHAR:
    case U_FORMAT_CHAR:
    case U_SURROGATE:
    case U_PRIVATE_USE_CHAR:
    case U_UNASSIGNED:
        return true;
    default:
        return false;
    }
}

class bert_normalizer final : public normalizer {
public:
    bert_normalizer(bool clean_text, bool chinese, bool strip_accents, bool lowercase)
        : clean_text_(clean_text), chinese_(chinese), strip_accents_(strip_accents), lowercase_(lowercase) {}

    // HF's order: clean, space the ideographs, strip accents, lowercase. At
    // most 5 bytes of 3 (an ideograph spaced): the bound is left to the caller.
    void apply(std::string& text, std::size_t) const override {
        if (clean_text_ || chinese_) {
            std::string out;
            out.reserve(text.size());
            for_each_char(text, [&](UChar32 c) {
                if (clean_text_ && (c == 0 || c == 0xFFFD || is_bert_control(c))) return;
                if (clean_text_ && is_bert_whitespace(c)) {
                    out += ' ';
                } else if (chinese_ && is_chinese_char(c)) {
                    out += ' ';
                    append(out, c);
                    out += ' ';
                } else {
                    append(out, c);
                }
            });
            text = std::move(out);
        }
        if (strip_accents_) {
            nfd(text);
            drop_nonspacing_marks(text);
        }
        if (lowercase_) lowercase_in_place(text);
    }

private:
    bool clean_text_, chinese_, strip_accents_, lowercase_;
};

}  // namespace

std::unique_ptr<normalizer> make_bert_normalizer(const json::object& o, const std::string& json_path) {
    const bool lowercase = get_bool(o, "lowercase", json_path, true);
    return std::make_unique<bert_normalizer>(get_bool(o, "clean_text", json_path, true),
                                             get_bool(o, "handle_chinese_chars", json_path, true),
                                             get_bool(o, "strip_accents", json_path, lowercase), lowercase);
}

}  // namespace openloop::hf
