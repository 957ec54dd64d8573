#include "openloop/watch/prometheus_text.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <unordered_map>

namespace openloop {
namespace {

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }
bool blank(char c) { return c == ' ' || c == '\t'; }

void skip_blanks(std::string_view& s) {
    while (!s.empty() && blank(s.front())) s.remove_prefix(1);
}

// A metric name (colons allowed) off the front of s; empty when none.
std::string_view take_name(std::string_view& s) {
    if (s.empty() || !name_start(s.front())) return {};
    std::size_t n = 1;
    while (n < s.size() && name_char(s[n])) ++n;
    const auto name = s.substr(0, n);
    s.remove_prefix(n);
    return name;
}

std::string_view take_token(std::string_view& s) {
    std::size_t n = 0;
    while (n < s.size() && !blank(s[n])) ++n;
    const auto tok = s.substr(0, n);
    s.remove_prefix(n);
    return tok;
}

// Go's ParseFloat, as Prometheus reads values: NaN, [+-]Inf, exponents.
std::optional<double> to_double(std::string_view s) {
    if (s.empty()) return std::nullopt;
    bool negative = false;
    if (s.front() == '+' || s.front() == '-') {
        negative = s.front() == '-';
        s.remove_prefix(1);
        if (s.empty() || s.front() == '+' || s.front() == '-') return std::nullopt;
    }
    double v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return negative ? -v : v;
}

// HELP text: `\\` and `\n` are escapes; any other backslash stays as written.
std::string unescape_help(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 1 < s.size() && (s[i + 1] == '\\' || s[i + 1] == 'n')) {
            out.push_back(s[i + 1] == 'n' ? '\n' : '\\');
            ++i;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

std::optional<prom_type> type_named(std::string_view t) {
    if (t == "counter") return prom_type::counter;
    if (t == "gauge" || t == "info" || t == "stateset") return prom_type::gauge;
    if (t == "histogram" || t == "gaugehistogram") return prom_type::histogram;
    if (t == "summary") return prom_type::summary;
    if (t == "untyped" || t == "unknown") return prom_type::untyped;
    return std::nullopt;
}

// `{name="value",...}` with `\\`, `\"`, `\n` escapes and an optional trailing
// comma; false on anything else.
bool take_labels(std::string_view& s, std::vector<std::pair<std::string, std::string>>& out) {
    s.remove_prefix(1);  // '{'
    for (;;) {
        skip_blanks(s);
        if (s.empty()) return false;
        if (s.front() == '}') {
            s.remove_prefix(1);
            return true;
        }
        const auto name = take_name(s);
        if (name.empty()) return false;
        skip_blanks(s);
        if (s.empty() || s.front() != '=') return false;
        s.remove_prefix(1);
        skip_blanks(s);
        if (s.empty() || s.front() != '"') return false;
        s.remove_prefix(1);
        std::string value;
        for (;;) {
            if (s.empty()) return false;
            const char c = s.front();
            s.remove_prefix(1);
            if (c == '"') break;
            if (c != '\\') {
                value.push_back(c);
                continue;
            }
            if (s.empty()) return false;
            const char e = s.front();
            s.remove_prefix(1);
            if (e == 'n') value.push_back('\n');
            else if (e == '\\' || e == '"') value.push_back(e);
            else return false;
        }
        out.emplace_back(std::string(name), std::move(value));
        skip_blanks(s);
        if (!s.empty() && s.front() == ',') s.remove_prefix(1);
        else if (s.empty() || s.front() != '}') return false;
    }
}

class parser {
public:
    prom_scrape run(std::string_view text) {
        std::size_t line_no = 0;
        while (!text.empty()) {
            const std::size_t nl = text.find('\n');
            std::string_view line = text.substr(0, nl);
            text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
            ++line_no;
            if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
            skip_blanks(line);
            if (line.empty()) continue;
            const auto outcome = line.front() == '#' ? comment(line) : sample(line);
            if (outcome == result::eof) break;
            if (outcome == result::bad) {
                if (out_.bad_lines++ == 0) out_.first_bad_line = line_no;
            }
        }
        std::sort(out_.families.begin(), out_.families.end(),
                  [](const prom_family& a, const prom_family& b) { return a.name < b.name; });
        return std::move(out_);
    }

private:
    enum class result { ok, bad, eof };

    prom_family& family(std::string_view name) {
        auto [it, fresh] = index_.try_emplace(std::string(name), out_.families.size());
        if (fresh) out_.families.push_back(prom_family{std::string(name), prom_type::untyped, {}});
        return out_.families[it->second];
    }

    result comment(std::string_view line) {
        line.remove_prefix(1);
        skip_blanks(line);
        const auto keyword = take_token(line);
        if (keyword == "EOF") return result::eof;
        if (keyword != "HELP" && keyword != "TYPE") return result::ok;  // a plain comment
        skip_blanks(line);
        const auto name = take_name(line);
        if (name.empty() || (!line.empty() && !blank(line.front()))) return result::bad;
        skip_blanks(line);
        if (keyword == "HELP") {
            family(name).help = unescape_help(line);
            return result::ok;
        }
        const auto type = type_named(take_token(line));
        skip_blanks(line);
        if (!type || !line.empty()) return result::bad;
        family(name).type = *type;
        return result::ok;
    }

    result sample(std::string_view line) {
        prom_sample s;
        const auto name = take_name(line);
        if (name.empty()) return result::bad;
        const std::size_t before_blanks = line.size();
        skip_blanks(line);
        bool separated = line.size() != before_blanks;
        if (!line.empty() && line.front() == '{') {
            if (!take_labels(line, s.labels)) return result::bad;
            separated = !line.empty() && blank(line.front());
            skip_blanks(line);
        }
        if (!separated) return result::bad;
        const auto value = to_double(take_token(line));
        if (!value) return result::bad;
        skip_blanks(line);
        if (!line.empty() && !to_double(take_token(line))) return result::bad;  // the timestamp
        skip_blanks(line);
        if (!line.empty()) return result::bad;
        s.name = name;
        s.value = *value;
        out_.samples.push_back(std::move(s));
        return result::ok;
    }

    prom_scrape out_;
    std::unordered_map<std::string, std::size_t> index_;
};

bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() > suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

prom_scrape parse_prometheus_text(std::string_view text) { return parser{}.run(text); }

const prom_family* find_family(const prom_scrape& scrape, std::string_view name) {
    const auto it = std::lower_bound(scrape.families.begin(), scrape.families.end(), name,
                                     [](const prom_family& f, std::string_view n) { return f.name < n; });
    return it != scrape.families.end() && it->name == name ? &*it : nullptr;
}

prom_type type_of(const prom_scrape& scrape, std::string_view sample_name) {
    if (const auto* f = find_family(scrape, sample_name); f != nullptr) return f->type;
    struct suffix_rule {
        std::string_view suffix;
        bool counter, histogram, summary;
    };
    static constexpr suffix_rule rules[] = {
        {"_bucket", false, true, false}, {"_sum", false, true, true}, {"_count", false, true, true},
        {"_total", true, false, false},  {"_created", true, true, true},
    };
    for (const auto& r : rules) {
        if (!ends_with(sample_name, r.suffix)) continue;
        const auto* f = find_family(scrape, sample_name.substr(0, sample_name.size() - r.suffix.size()));
        if (f == nullptr) continue;
        if ((f->type == prom_type::counter && r.counter) || (f->type == prom_type::histogram && r.histogram) ||
            (f->type == prom_type::summary && r.summary))
            return f->type;
    }
    return prom_type::untyped;
}

}  // namespace openloop
