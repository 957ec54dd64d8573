// The Prometheus text parser on arbitrary bytes. Input: one byte choosing
// where to cut the text (at the next newline), then the text.
// Invariants: nothing throws; every line is a sample, a bad line or neither,
// and the first bad line's number is within the text; names are well formed;
// families are sorted and unique; parsing the two halves of a text cut at a
// newline gives the whole's samples and bad lines (unless `# EOF` may end the
// first half); CRLF line ends read as LF; type_of answers for every sample.

#include "fuzz_input.hpp"

#include "openloop/watch/prometheus_text.hpp"

#include <algorithm>
#include <cstring>
#include <string>

namespace {

using openloop::prom_sample;
using openloop::prom_scrape;

bool valid_name(const std::string& n, bool colons) {
    if (n.empty()) return false;
    for (std::size_t i = 0; i < n.size(); ++i) {
        const char c = n[i];
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || (colons && c == ':') ||
                        (i > 0 && c >= '0' && c <= '9');
        if (!ok) return false;
    }
    return true;
}

bool same(const prom_sample& a, const prom_sample& b) {
    return a.name == b.name && a.labels == b.labels && std::memcmp(&a.value, &b.value, sizeof a.value) == 0;
}

bool same_samples(const std::vector<prom_sample>& a, const std::vector<prom_sample>& b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
}

void check(const prom_scrape& s, std::string_view text) {
    const std::size_t lines = static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
    FUZZ_CHECK(s.samples.size() + s.bad_lines <= lines);
    FUZZ_CHECK((s.bad_lines == 0) == (s.first_bad_line == 0));
    FUZZ_CHECK(s.first_bad_line <= lines);
    std::size_t label_bytes = 0;
    for (const auto& x : s.samples) {
        FUZZ_CHECK(valid_name(x.name, true));
        for (const auto& [k, v] : x.labels) {
            FUZZ_CHECK(valid_name(k, true));
            label_bytes += k.size() + v.size();
        }
        (void)openloop::type_of(s, x.name);
    }
    FUZZ_CHECK(label_bytes <= text.size());
    for (std::size_t i = 0; i < s.families.size(); ++i) {
        FUZZ_CHECK(valid_name(s.families[i].name, true));
        FUZZ_CHECK(i == 0 || s.families[i - 1].name < s.families[i].name);
        FUZZ_CHECK(openloop::find_family(s, s.families[i].name) == &s.families[i]);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    fuzz::input in(data, size);
    const std::uint8_t cut = in.byte();
    const std::string_view text = in.rest();
    const prom_scrape whole = openloop::parse_prometheus_text(text);
    check(whole, text);

    const std::size_t nl = text.find('\n', std::min<std::size_t>(cut * text.size() / 256, text.size()));
    if (nl != std::string_view::npos) {
        const auto first = text.substr(0, nl + 1);
        if (first.find("EOF") == std::string_view::npos) {
            const prom_scrape a = openloop::parse_prometheus_text(first);
            const prom_scrape b = openloop::parse_prometheus_text(text.substr(nl + 1));
            std::vector<prom_sample> joined = a.samples;
            joined.insert(joined.end(), b.samples.begin(), b.samples.end());
            FUZZ_CHECK(same_samples(joined, whole.samples));
            FUZZ_CHECK(a.bad_lines + b.bad_lines == whole.bad_lines);
        }
    }

    if (text.find('\r') == std::string_view::npos) {
        std::string crlf;
        for (const char c : text) {
            if (c == '\n') crlf.push_back('\r');
            crlf.push_back(c);
        }
        const prom_scrape c = openloop::parse_prometheus_text(crlf);
        FUZZ_CHECK(same_samples(c.samples, whole.samples));
        FUZZ_CHECK(c.bad_lines == whole.bad_lines);
        FUZZ_CHECK(c.first_bad_line == whole.first_bad_line);
    }
    return 0;
}
