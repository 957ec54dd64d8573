#include "openloop/results/slo.hpp"

#include "openloop/base/quantity.hpp"
#include "openloop/base/trim.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <stdexcept>
#include <utility>

namespace openloop {

namespace {

constexpr std::string_view slo_syntax =
    "expected <metric>_<stat>=<duration> (metric: ttft, ttfa, tpot, itl, icl, e2e, lag, reasoning; stat: p50, p90, p95, p99, "
    "p99.9, mean, max; duration with unit us, ms, s, m or h, a bare number being seconds, e.g. ttft_p99=1s) or "
    "error_rate=<percent or fraction> (e.g. error_rate=0.1%)";

// Our metric name → the family name in summary.json.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> metrics = {{
    {"ttft", "ttft"},
    {"ttfa", "ttfa"},
    {"reasoning", "reasoning"},
    {"tpot", "tpot"},
    {"itl", "itl"},
    {"icl", "icl"},
    {"e2e", "e2el"},
    {"e2el", "e2el"},
    {"lag", "lag"},
}};

// Written form → canonical statistic.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> stats = {{
    {"p50", "p50"},
    {"median", "p50"},
    {"p90", "p90"},
    {"p95", "p95"},
    {"p99", "p99"},
    {"p99.9", "p99.9"},
    {"p999", "p99.9"},
    {"mean", "mean"},
    {"max", "max"},
}};

template <std::size_t N>
std::optional<std::string_view> lookup_name(const std::array<std::pair<std::string_view, std::string_view>, N>& table,
                                            std::string_view key) {
    for (const auto& [from, to] : table) {
        if (from == key) {
            return to;
        }
    }
    return std::nullopt;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (;;) {
        const auto pos = s.find(sep, start);
        parts.push_back(trim(s.substr(start, pos == std::string_view::npos ? std::string_view::npos : pos - start)));
        if (pos == std::string_view::npos) {
            return parts;
        }
        start = pos + 1;
    }
}

[[noreturn]] void bad_slo(std::string_view spec, std::string_view why) {
    throw std::invalid_argument("bad --slo '" + std::string(spec) + "': " + std::string(why) + "; " +
                                std::string(slo_syntax));
}

constexpr std::string_view rates_syntax =
    "expected an ascending list (1,2,4,8), a geometric ladder start:end:xfactor (0.5:64:x2), an arithmetic "
    "ladder start:end:+step (1:10:+1), or auto";

[[noreturn]] void bad_rates(std::string_view spec, std::string_view why) {
    throw std::invalid_argument("bad --rates '" + std::string(spec) + "': " + std::string(why) + "; " +
                                std::string(rates_syntax));
}

// Far more stages than any sweep can run: a typo like 1:10000:+0.001 should
// be an error, not an hour of allocation.
constexpr std::size_t max_ladder = 10000;

std::vector<double> ladder(std::string_view spec, std::string_view text) {
    const auto parts = split(text, ':');
    if (parts.size() != 3) {
        bad_rates(spec, "a ladder has three fields");
    }
    const auto start = as_number(parts[0]);
    const auto end = as_number(parts[1]);
    if (!start || !end || *start <= 0) {
        bad_rates(spec, "start and end must be positive numbers");
    }
    if (*end < *start) {
        bad_rates(spec, "end is below start");
    }
    const auto step_text = parts[2];
    const bool geometric = !step_text.empty() && step_text[0] == 'x';
    if (step_text.empty() || !(geometric || step_text[0] == '+')) {
        bad_rates(spec, "the step must be x<factor> or +<increment>");
    }
    const auto step = as_number(step_text.substr(1));
    if (!step || (geometric ? *step <= 1 : *step <= 0)) {
        bad_rates(spec, geometric ? "the factor must be a number above 1" : "the increment must be a positive number");
    }
    std::vector<double> rates;
    // Each rate from its index, not by accumulation, so rounding does not
    // drift and an end that the ladder hits exactly is kept.
    for (std::size_t k = 0;; ++k) {
        const double kd = static_cast<double>(k);
        double r = geometric ? *start * std::pow(*step, kd) : *start + kd * *step;
        if (std::abs(r - *end) <= 1e-9 * *end) {
            r = *end;
        } else if (r > *end) {
            break;
        }
        if (rates.size() == max_ladder) {
            bad_rates(spec, "more than 10000 rates");
        }
        rates.push_back(r);
    }
    return rates;
}

}  // namespace

slo parse_slo(std::string_view spec) {
    const auto text = trim(spec);
    const auto eq = text.find('=');
    if (eq == std::string_view::npos) {
        bad_slo(spec, "missing '='");
    }
    const auto name = trim(text.substr(0, eq));
    const auto value = trim(text.substr(eq + 1));
    slo s;
    s.text = std::string(text);
    if (name == "error_rate") {
        s.metric = "error_rate";
        try {
            s.limit = parse_fraction(value, "error rate");
        } catch (const quantity_error& e) {
            bad_slo(spec, e.what());
        }
        return s;
    }
    const auto us = name.rfind('_');
    if (us == std::string_view::npos) {
        bad_slo(spec, "missing _<stat> after the metric");
    }
    const auto metric = name.substr(0, us);
    const auto stat = lookup_name(stats, name.substr(us + 1));
    if (!lookup_name(metrics, metric)) {
        bad_slo(spec, "unknown metric '" + std::string(metric) + "'");
    }
    if (!stat) {
        bad_slo(spec, "unknown statistic '" + std::string(name.substr(us + 1)) + "'");
    }
    s.metric = metric == "e2el" ? "e2e" : std::string(metric);
    s.stat = std::string(*stat);
    // The limit reads as every duration does, so ttft_p99=0.5 is the same 500 ms as --goodput ttft=0.5.
    try {
        s.limit = parse_duration_ms(value, "limit");
    } catch (const quantity_error& e) {
        bad_slo(spec, e.what());
    }
    if (!(s.limit > 0)) {
        bad_slo(spec, "a latency limit must be positive");
    }
    return s;
}

std::vector<slo> parse_slos(const std::vector<std::string>& specs) {
    std::vector<slo> out;
    for (const auto& spec : specs) {
        for (const auto part : split(spec, ',')) {
            auto s = parse_slo(part);
            const auto same = std::find_if(out.begin(), out.end(), [&](const slo& o) {
                return o.metric == s.metric && o.stat == s.stat;
            });
            if (same != out.end()) {
                throw std::invalid_argument("--slo '" + s.text + "' repeats '" + same->text +
                                            "': give each metric and statistic once");
            }
            out.push_back(std::move(s));
        }
    }
    return out;
}

std::string summary_key(const slo& s) {
    if (s.metric == "error_rate") {
        return "error_rate";
    }
    const auto family = lookup_name(metrics, s.metric);
    if (!family || !lookup_name(stats, s.stat)) {
        throw std::invalid_argument("summary_key: no summary key for metric '" + s.metric + "', statistic '" +
                                    s.stat + "'");
    }
    // summary.json writes the median as median_X_ms (vLLM) and also p50_X_ms; use vLLM's.
    const std::string prefix = s.stat == "p50" ? "median" : s.stat;
    return prefix + "_" + std::string(*family) + "_ms";
}

slo_check check_slo(const slo& s, const std::function<std::optional<double>(std::string_view key)>& lookup) {
    slo_check c;
    c.observed = lookup(summary_key(s));
    c.pass = c.observed && *c.observed <= s.limit;
    return c;
}

rate_list parse_rates(std::string_view spec) {
    const auto text = trim(spec);
    rate_list out;
    if (text == "auto") {
        out.automatic = true;
        return out;
    }
    if (text.find(':') != std::string_view::npos) {
        out.rates = ladder(spec, text);
        return out;
    }
    for (const auto part : split(text, ',')) {
        const auto r = as_number(part);
        if (!r || *r <= 0) {
            bad_rates(spec, "'" + std::string(part) + "' is not a positive number");
        }
        if (!out.rates.empty() && *r <= out.rates.back()) {
            bad_rates(spec, "rates must be strictly ascending");
        }
        out.rates.push_back(*r);
    }
    return out;
}

double parse_precision(std::string_view spec) {
    constexpr std::string_view expected = "expected a percentage (5%) or a fraction (0.05) above 0 and below 1";
    double p = 0;
    try {
        p = parse_fraction(spec, "");
    } catch (const quantity_error& e) {
        throw std::invalid_argument("bad --precision '" + std::string(spec) + "': " + e.what() + "; " +
                                    std::string(expected));
    }
    if (!(p > 0 && p < 1)) {
        throw std::invalid_argument("bad --precision '" + std::string(spec) + "': " + std::string(expected));
    }
    return p;
}

std::vector<int> parse_concurrency_list(std::string_view spec) {
    std::vector<int> out;
    for (const auto part : split(trim(spec), ',')) {
        const auto whole = as_integer(part);
        if (!whole || *whole <= 0 || *whole > std::numeric_limits<int>::max()) {
            throw std::invalid_argument("bad --concurrency '" + std::string(spec) + "': '" + std::string(part) +
                                        "' is not a positive integer; expected an ascending list such as 1,2,4,8");
        }
        const int n = static_cast<int>(*whole);
        if (!out.empty() && n <= out.back()) {
            throw std::invalid_argument("bad --concurrency '" + std::string(spec) +
                                        "': values must be strictly ascending, e.g. 1,2,4,8");
        }
        out.push_back(n);
    }
    return out;
}

}  // namespace openloop
