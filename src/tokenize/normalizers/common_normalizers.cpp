#include "openloop/tokenize/normalizers/common_normalizers.hpp"

#include "openloop/tokenize/hf_json.hpp"
#include "openloop/tokenize/text/pattern.hpp"

#include <boost/json.hpp>
#include <unicode/locid.h>
#include <unicode/normalizer2.h>
#include <unicode/unistr.h>

#include <algorithm>
#include <stdexcept>

namespace openloop::hf {

namespace json = boost::json;

namespace {

bool ascii(std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
}

class unicode_form final : public normalizer {
public:
    enum class form { nfc, nfd, nfkc, nfkd };
    explicit unicode_form(form f) {
        UErrorCode status = U_ZERO_ERROR;
        switch (f) {
        case form::nfc: n_ = icu::Normalizer2::getNFCInstance(status); break;
        case form::nfd: n_ = icu::Normalizer2::getNFDInstance(status); break;
        case form::nfkc: n_ = icu::Normalizer2::getNFKCInstance(status); break;
        case form::nfkd: n_ = icu::Normalizer2::getNFKDInstance(status); break;
        }
        if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU normalizer unavailable: ") + u_errorName(status));
    }
    void apply(std::string& text, std::size_t) const override {
        if (ascii(text)) return;  // every form leaves ASCII as it is
        UErrorCode status = U_ZERO_ERROR;
        const icu::UnicodeString in = icu::UnicodeString::fromUTF8(text);
        if (n_->isNormalized(in, status) && U_SUCCESS(status)) return;
        status = U_ZERO_ERROR;
        const icu::UnicodeString out = n_->normalize(in, status);
        if (U_FAILURE(status)) throw std::runtime_error(std::string("ICU normalization failed: ") + u_errorName(status));
        text.clear();
        out.toUTF8String(text);
    }

private:
    const icu::Normalizer2* n_ = nullptr;
};

class replace final : public normalizer {
public:
    replace(const json::object& o, const std::string& path)
        : pattern_(member(o, "pattern") ? *member(o, "pattern") : json::value(), path + ".pattern"),
          content_(get_string(o, "content", path)) {}
    void apply(std::string& text, std::size_t limit) const override { text = pattern_.replace_all(text, content_, limit); }

private:
    text_pattern pattern_;
    std::string content_;
};

class prepend final : public normalizer {
public:
    explicit prepend(std::string s) : prefix_(std::move(s)) {}
    // transformers.js prepends to every stretch of text it normalizes.
    void apply(std::string& text, std::size_t) const override { text.insert(0, prefix_); }

private:
    std::string prefix_;
};

class lowercase final : public normalizer {
public:
    void apply(std::string& text, std::size_t) const override {
        if (ascii(text)) {
            for (char& c : text)
                if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
            return;
        }
        // The root locale's full mapping, final sigma included, as
        // JavaScript's toLowerCase().
        icu::UnicodeString s = icu::UnicodeString::fromUTF8(text);
        s.toLower(icu::Locale::getRoot());
        text.clear();
        s.toUTF8String(text);
    }
};

class strip final : public normalizer {
public:
    strip(bool left, bool right) : left_(left), right_(right) {}
    void apply(std::string& text, std::size_t) const override {
        std::string_view s = text;
        if (left_) s = trim_js_start(s);
        if (right_) s = trim_js_end(s);
        if (s.size() != text.size()) text = std::string(s);
    }

private:
    bool left_, right_;
};

class strip_accents final : public normalizer {
public:
    strip_accents() : marks_("\\p{M}", regex_dialect::javascript, "StripAccents") {}
    void apply(std::string& text, std::size_t) const override {
        if (ascii(text)) return;
        std::string out;
        std::size_t pos = 0;
        marks_.for_each_match(text, [&](std::size_t s, std::size_t e) {
            out.append(text, pos, s - pos);
            pos = e;
        });
        if (pos == 0) return;
        out.append(text, pos);
        text = std::move(out);
    }

private:
    unicode_regex marks_;
};

class normalizer_sequence final : public normalizer {
public:
    normalizer_sequence(const json::object& o, const std::string& path)
        : stages_(make_each(o, "normalizers", path, make_normalizer)) {}
    void apply(std::string& text, std::size_t limit) const override {
        for (const auto& n : stages_) n->apply(text, limit);
    }

private:
    std::vector<std::unique_ptr<normalizer>> stages_;
};

}  // namespace

std::unique_ptr<normalizer> make_builtin_normalizer(std::string_view type, const json::object& o,
                                                    const std::string& path) {
    using f = unicode_form::form;
    if (type == "NFC") return std::make_unique<unicode_form>(f::nfc);
    if (type == "NFD") return std::make_unique<unicode_form>(f::nfd);
    if (type == "NFKC") return std::make_unique<unicode_form>(f::nfkc);
    if (type == "NFKD") return std::make_unique<unicode_form>(f::nfkd);
    if (type == "Replace") return std::make_unique<replace>(o, path);
    if (type == "Prepend") return std::make_unique<prepend>(get_string(o, "prepend", path));
    if (type == "Lowercase") return std::make_unique<lowercase>();
    if (type == "Strip")
        return std::make_unique<strip>(get_bool(o, "strip_left", path, false), get_bool(o, "strip_right", path, false));
    if (type == "StripAccents") return std::make_unique<strip_accents>();
    if (type == "Sequence") return std::make_unique<normalizer_sequence>(o, path);
    return nullptr;
}

}  // namespace openloop::hf
