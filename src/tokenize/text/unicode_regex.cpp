#include "openloop/tokenize/text/unicode_regex.hpp"

#include "openloop/base/input_error.hpp"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <unicode/uchar.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <unordered_map>

namespace openloop {

namespace {

// JavaScript's \s (WhiteSpace and LineTerminator) and Rust's (the Unicode
// White_Space property): PCRE2's \s with UCP is neither (it lacks U+FEFF,
// and U+0085).
constexpr std::string_view js_space =
    "\\t\\n\\x0B\\f\\r \\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}\\x{FEFF}";
constexpr std::string_view rust_space =
    "\\t\\n\\x0B\\f\\r \\x{85}\\x{A0}\\x{1680}\\x{2000}-\\x{200A}\\x{2028}\\x{2029}\\x{202F}\\x{205F}\\x{3000}";

// What transformers.js rewrites before compiling a tokenizer.json pattern:
// the inline case-insensitive group JavaScript lacks.
constexpr std::string_view js_case_group = "(?i:'s|'t|'re|'ve|'m|'ll|'d)";
constexpr std::string_view js_case_group_replacement = "(?:'([sS]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD]))";

// The code points of general category name (one letter: all its
// categories) that Unicode assigned after the version PCRE2's tables hold,
// as class members, from ICU: JavaScript and Rust know them (a new emoji is
// \p{S} there), PCRE2 10.42 (Unicode 14) would call them unassigned.
std::string newer_members(std::string_view name) {
    static const std::unordered_map<std::string, std::string> by_category = [] {
        std::unordered_map<std::string, std::string> ranges;
        char version[24] = {};
        pcre2_config(PCRE2_CONFIG_UNICODE_VERSION, version);
        const int known = std::atoi(version);
        const auto add = [&](UChar32 first, UChar32 last, int category) {
            const char* code = u_getPropertyValueName(UCHAR_GENERAL_CATEGORY, category, U_SHORT_PROPERTY_NAME);
            if (code == nullptr) return;
            char range[40];
            std::snprintf(range, sizeof range, "\\x{%X}-\\x{%X}", unsigned(first), unsigned(last));
            ranges[code] += range;
        };
        UChar32 first = -1;
        int run = -1;
        for (UChar32 cp = 0; cp <= 0x110000; ++cp) {
            int category = -1;
            if (cp <= 0x10FFFF) {
                UVersionInfo age;
                u_charAge(cp, age);
                if (age[0] > known) category = u_charType(cp);
            }
            if (category == run) continue;
            if (run >= 0) add(first, cp - 1, run);
            first = cp;
            run = category;
        }
        return ranges;
    }();
    std::string out;
    for (const auto& [code, members] : by_category)
        if (name == code || (name.size() == 1 && code.front() == name.front())) out += members;
    return out;
}

std::string class_of(std::string_view members, bool negated, bool in_class) {
    if (in_class) return std::string(members);
    return std::string(negated ? "[^" : "[") + std::string(members) + "]";
}

}  // namespace

std::string translate_pattern(std::string_view pattern, regex_dialect dialect) {
    const bool js = dialect == regex_dialect::javascript;
    std::string p(pattern);
    if (js) {
        for (std::size_t at = p.find(js_case_group); at != std::string::npos; at = p.find(js_case_group, at))
            p.replace(at, js_case_group.size(), js_case_group_replacement);
    }
    const std::string_view space = js ? js_space : rust_space;
    std::string out;
    out.reserve(p.size() + 64);
    bool in_class = false;
    for (std::size_t i = 0; i < p.size(); ++i) {
        const char c = p[i];
        if (c == '\\' && i + 1 < p.size()) {
            const char e = p[++i];
            if (e == 's') out += class_of(space, false, in_class);
            else if (e == 'S' && !in_class) out += class_of(space, true, false);
            else if (js && e == 'd') out += class_of("0-9", false, in_class);
            else if (js && e == 'D' && !in_class) out += "[^0-9]";
            else if (js && e == 'w') out += class_of("A-Za-z0-9_", false, in_class);
            else if (js && e == 'W' && !in_class) out += "[^A-Za-z0-9_]";
            else if (e == 'p' && i + 1 < p.size() && p[i + 1] == '{' && p.find('}', i) != std::string::npos) {
                const std::size_t close = p.find('}', i);
                const std::string_view name = std::string_view(p).substr(i + 2, close - i - 2);
                const std::string extra = newer_members(name);
                const std::string property = "\\p{" + std::string(name) + "}";
                out += extra.empty() ? property : class_of(property + extra, false, in_class);
                i = close;
            } else if (e == 'u' && i + 4 < p.size() && p[i + 1] != '{') {
                out += "\\x{" + p.substr(i + 1, 4) + "}";
                i += 4;
            } else if (js && (e == '#' || e == '&' || e == '~')) {
                out += e;  // transformers.js drops these escapes
            } else {
                out += '\\';
                out += e;
            }
        } else if (c == '[' && !in_class) {
            in_class = true;
            out += c;
            if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
        } else if (c == ']' && in_class) {
            in_class = false;
            out += c;
        } else if (c == '.' && !in_class && js) {
            out += "[^\\n\\r\\x{2028}\\x{2029}]";
        } else {
            out += c;
        }
    }
    return out;
}

struct unicode_regex::compiled {
    pcre2_code* code = nullptr;
    std::string name;  // "<what> regex /<pattern>/", for a match's error
    ~compiled() { pcre2_code_free(code); }
};

unicode_regex::unicode_regex(std::string_view pattern, regex_dialect dialect, const std::string& what)
    : re_(std::make_unique<compiled>()) {
    re_->name = what + " regex /" + std::string(pattern) + "/";
    const std::string translated = translate_pattern(pattern, dialect);
    int error = 0;
    PCRE2_SIZE offset = 0;
    // DOLLAR_ENDONLY: $ is the end of the text, not also before a final \n,
    // in both dialects.
    re_->code = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(translated.data()), translated.size(),
                              PCRE2_UTF | PCRE2_UCP | PCRE2_DOLLAR_ENDONLY, &error, &offset, nullptr);
    if (re_->code == nullptr) {
        PCRE2_UCHAR message[256];
        pcre2_get_error_message(error, message, sizeof message);
        throw std::runtime_error(re_->name + " does not compile: " + reinterpret_cast<const char*>(message) +
                                 " at offset " + std::to_string(offset));
    }
    // Without JIT (a platform PCRE2 lacks it for) matching still works, slower.
    pcre2_jit_compile(re_->code, PCRE2_JIT_COMPLETE);
}

unicode_regex::~unicode_regex() = default;
unicode_regex::unicode_regex(unicode_regex&&) noexcept = default;
unicode_regex& unicode_regex::operator=(unicode_regex&&) noexcept = default;

namespace {

// The JIT's stack: PCRE2's 32 KiB default is too small for a long run of
// whitespace under \s+(?!\S); one per thread, as a stack may not be shared.
pcre2_match_context* match_context() {
    struct holder {
        pcre2_jit_stack* stack = pcre2_jit_stack_create(64 * 1024, 8 * 1024 * 1024, nullptr);
        pcre2_match_context* context = pcre2_match_context_create(nullptr);
        holder() { pcre2_jit_stack_assign(context, nullptr, stack); }
        ~holder() {
            pcre2_match_context_free(context);
            pcre2_jit_stack_free(stack);
        }
    };
    thread_local holder h;
    return h.context;
}

}  // namespace

unicode_regex::search::search(const unicode_regex& re, std::string_view text)
    : re_(re), text_(text), match_data_(pcre2_match_data_create_from_pattern(re.re_->code, nullptr)) {}

unicode_regex::search::~search() { pcre2_match_data_free(static_cast<pcre2_match_data*>(match_data_)); }

bool unicode_regex::search::next(std::size_t& start, std::size_t& end) {
    auto* md = static_cast<pcre2_match_data*>(match_data_);
    while (pos_ < text_.size()) {
        const int rc = pcre2_match(re_.re_->code, reinterpret_cast<PCRE2_SPTR>(text_.data()), text_.size(), pos_,
                                   PCRE2_NO_UTF_CHECK, md, match_context());
        if (rc == PCRE2_ERROR_NOMATCH) {
            pos_ = text_.size();
            return false;
        }
        if (rc < 0) {
            // PCRE2 gives up on a pattern that backtracks catastrophically, (a+)+$ on a's and a b:
            // the file's pattern with this text, named as the input it is.
            PCRE2_UCHAR message[256];
            pcre2_get_error_message(rc, message, sizeof message);
            throw input_error(re_.re_->name + " cannot be matched against a text of " + std::to_string(text_.size()) +
                              " bytes: " + reinterpret_cast<const char*>(message));
        }
        const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(md);
        if (ov[1] > ov[0]) {
            start = ov[0];
            end = ov[1];
            pos_ = end;
            return true;
        }
        // An empty match: step one code point on, as JavaScript's /u does.
        pos_ = ov[0] + 1;
        while (pos_ < text_.size() && (static_cast<unsigned char>(text_[pos_]) & 0xC0) == 0x80) ++pos_;
    }
    return false;
}

}  // namespace openloop
