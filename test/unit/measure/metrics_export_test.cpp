#include <boost/test/unit_test.hpp>

#include "openloop/measure/metrics_export.hpp"

#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_metrics_export)

using namespace openloop;

namespace {

// A tiny reader of exposition format 0.0.4, strict where ours must be: every
// line a comment or `name{labels} value`, every family typed before its
// samples, no series twice, histogram buckets cumulative with +Inf = _count.
struct sample {
    std::string name;
    std::map<std::string, std::string> labels;
    double value = 0;
};

struct exposition {
    std::map<std::string, std::string> types;  // family -> type
    std::map<std::string, std::string> help;
    std::vector<sample> samples;

    std::optional<double> value(const std::string& name, const std::map<std::string, std::string>& labels = {}) const {
        for (const auto& s : samples) {
            if (s.name == name && s.labels == labels) return s.value;
        }
        return std::nullopt;
    }
    bool has_family(const std::string& name) const { return types.count(name) != 0; }
};

bool valid_name(const std::string& n) {
    if (n.empty() || !(std::isalpha(static_cast<unsigned char>(n[0])) || n[0] == '_' || n[0] == ':')) return false;
    for (char c : n) {
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':')) return false;
    }
    return true;
}

double parse_value(const std::string& text) {
    if (text == "+Inf") return INFINITY;
    if (text == "-Inf") return -INFINITY;
    if (text == "NaN") return NAN;
    double v = 0;
    const auto r = std::from_chars(text.data(), text.data() + text.size(), v);
    if (r.ec != std::errc() || r.ptr != text.data() + text.size()) throw std::runtime_error("bad value '" + text + "'");
    return v;
}

// The family a sample belongs to: a histogram's _bucket/_sum/_count belong to its base name.
std::string family_of(const std::string& name, const std::map<std::string, std::string>& types) {
    for (const char* suffix : {"_bucket", "_sum", "_count"}) {
        const std::string s = suffix;
        if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
            const auto base = name.substr(0, name.size() - s.size());
            const auto t = types.find(base);
            if (t != types.end() && t->second == "histogram") return base;
        }
    }
    return name;
}

exposition parse(const std::string& text) {
    exposition e;
    std::set<std::string> series;
    std::set<std::string> sampled_families;
    BOOST_REQUIRE(!text.empty());
    BOOST_REQUIRE(text.back() == '\n');
    std::istringstream in(text);
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
        ++n;
        BOOST_TEST_CONTEXT("line " << n << ": " << line) {
            BOOST_REQUIRE(!line.empty());
            if (line[0] == '#') {
                std::istringstream words(line);
                std::string hash, kind, name, rest;
                words >> hash >> kind >> name;
                std::getline(words, rest);
                BOOST_REQUIRE(valid_name(name));
                if (kind == "TYPE") {
                    BOOST_TEST(e.types.count(name) == 0u, "TYPE twice");
                    BOOST_TEST(sampled_families.count(name) == 0u, "TYPE after samples");
                    const std::string type = rest.substr(rest.find_first_not_of(' '));
                    BOOST_TEST((type == "counter" || type == "gauge" || type == "histogram"));
                    e.types[name] = type;
                } else {
                    BOOST_REQUIRE(kind == "HELP");
                    e.help[name] = rest;
                }
                continue;
            }
            sample s;
            const auto space = line.rfind(' ');
            BOOST_REQUIRE(space != std::string::npos);
            std::string key = line.substr(0, space);
            s.value = parse_value(line.substr(space + 1));
            const auto brace = key.find('{');
            s.name = key.substr(0, brace);
            BOOST_REQUIRE(valid_name(s.name));
            if (brace != std::string::npos) {
                BOOST_REQUIRE(key.back() == '}');
                std::string body = key.substr(brace + 1, key.size() - brace - 2);
                std::size_t i = 0;
                while (i < body.size()) {
                    const auto eq = body.find("=\"", i);
                    BOOST_REQUIRE(eq != std::string::npos);
                    const auto close = body.find('"', eq + 2);
                    BOOST_REQUIRE(close != std::string::npos);
                    const auto label = body.substr(i, eq - i);
                    BOOST_REQUIRE(valid_name(label));
                    s.labels[label] = body.substr(eq + 2, close - eq - 2);
                    i = close + 1;
                    if (i < body.size()) {
                        BOOST_REQUIRE(body[i] == ',');
                        ++i;
                    }
                }
            }
            const auto family = family_of(s.name, e.types);
            BOOST_TEST(e.types.count(family) == 1u, "family " << family << " has no TYPE before it");
            BOOST_TEST(e.help.count(family) == 1u, "family " << family << " has no HELP");
            sampled_families.insert(family);
            BOOST_TEST(series.insert(key).second, "series twice: " << key);
            e.samples.push_back(std::move(s));
        }
    }
    for (const auto& [family, type] : e.types) {
        BOOST_TEST(sampled_families.count(family) == 1u, "family " << family << " has no sample");
    }
    return e;
}

// Buckets of one histogram family in order; checks them and returns le -> count.
std::vector<std::pair<double, double>> check_histogram(const exposition& e, const std::string& name,
                                                       const histogram& h) {
    BOOST_TEST_CONTEXT(name) {
        BOOST_REQUIRE(e.types.at(name) == "histogram");
        std::vector<std::pair<double, double>> buckets;
        for (const auto& s : e.samples) {
            if (s.name != name + "_bucket") continue;
            BOOST_REQUIRE(s.labels.size() == 1u);
            buckets.emplace_back(parse_value(s.labels.at("le")), s.value);
        }
        BOOST_REQUIRE(buckets.size() >= 2u);
        for (std::size_t i = 1; i < buckets.size(); ++i) {
            BOOST_TEST(buckets[i].first > buckets[i - 1].first, "le ascending");
            BOOST_TEST(buckets[i].second >= buckets[i - 1].second, "cumulative");
        }
        BOOST_TEST(std::isinf(buckets.back().first));
        BOOST_TEST(buckets.back().second == *e.value(name + "_count"));
        BOOST_TEST(*e.value(name + "_count") == static_cast<double>(h.count()));
        BOOST_TEST(*e.value(name + "_sum") == h.sum() / 1e9, boost::test_tools::tolerance(1e-12));
        return buckets;
    }
    return {};
}

double bucket(const std::vector<std::pair<double, double>>& buckets, double le) {
    for (const auto& [bound, count] : buckets) {
        if (bound == le) return count;
    }
    BOOST_FAIL("no bucket le=" << le);
    return -1;
}

run_stats filled_stats() {
    run_stats s;
    s.started = 120;
    s.completed = 100;
    s.failed = 7;
    s.refused = 3;
    s.warmup_started = 9;
    s.failed_by_class[static_cast<int>(error_class::connect)] = 4;
    s.failed_by_class[static_cast<int>(error_class::http_5xx)] = 2;
    s.failed_by_class[static_cast<int>(error_class::bad_http)] = 1;
    s.total_output_tokens = 6400;
    s.total_input_tokens = 51200;
    // TTFT well inside buckets, so the cumulative counts are exact: 0.5 ms,
    // 3 ms, 40 ms, 2 s and 400 s (beyond the last bound: only in +Inf).
    for (std::int64_t ns : {500'000LL, 3'000'000LL, 40'000'000LL, 2'000'000'000LL, 400'000'000'000LL}) {
        s.ttft.record(ns);
    }
    s.e2e.record(1'200'000'000, 5);
    s.itl.record(20'000'000, 630);  // weighted per-token samples
    s.itl.record(150'000);
    s.tpot.record(21'000'000, 99);
    s.lag.record(30'000, 119);
    s.lag.record(2'000'000'000);  // beyond 1 s
    return s;
}

}  // namespace

BOOST_AUTO_TEST_CASE(counters_and_gauges) {
    const run_stats s = filled_stats();
    live_view v;
    v.stats = &s;
    v.in_flight = 11;
    v.lost_events = 2;
    v.generator_rss_bytes = 12'345'678;
    v.generator_cpu_seconds = 3.25;
    const auto e = parse(format_live_metrics(v));
    BOOST_TEST(e.types.at("openloop_requests_started_total") == "counter");
    BOOST_TEST(*e.value("openloop_requests_started_total") == 120);
    BOOST_TEST(*e.value("openloop_requests_completed_total") == 100);
    BOOST_TEST(*e.value("openloop_requests_refused_total") == 3);
    BOOST_TEST(*e.value("openloop_warmup_requests_total") == 9);
    BOOST_TEST(*e.value("openloop_output_tokens_total") == 6400);
    BOOST_TEST(*e.value("openloop_input_tokens_total") == 51200);
    BOOST_TEST(e.types.at("openloop_in_flight") == "gauge");
    BOOST_TEST(*e.value("openloop_in_flight") == 11);
    BOOST_TEST(*e.value("openloop_lost_events_total") == 2);
    BOOST_TEST(*e.value("openloop_generator_resident_memory_bytes") == 12'345'678);
    BOOST_TEST(*e.value("openloop_generator_cpu_seconds_total") == 3.25);
    // Every error class but none, zeros included, so rate() has a series from the start.
    double failed = 0;
    for (int c = 1; c < error_class_count; ++c) {
        const std::string name(error_class_name(static_cast<error_class>(c)));
        const auto got = e.value("openloop_requests_failed_total", {{"class", name}});
        BOOST_TEST_REQUIRE(got.has_value(), name);
        BOOST_TEST(*got == static_cast<double>(s.failed_by_class[static_cast<std::size_t>(c)]), name);
        failed += *got;
    }
    BOOST_TEST(!e.value("openloop_requests_failed_total", {{"class", "none"}}).has_value());
    BOOST_TEST(failed == 7);
    BOOST_TEST(*e.value("openloop_requests_failed_total", {{"class", "connect"}}) == 4);
}

BOOST_AUTO_TEST_CASE(histograms_are_cumulative_in_seconds) {
    const run_stats s = filled_stats();
    live_view v;
    v.stats = &s;
    const auto e = parse(format_live_metrics(v));
    const auto ttft = check_histogram(e, "openloop_ttft_seconds", s.ttft);
    BOOST_TEST(ttft.size() == request_buckets().size() + 1);
    BOOST_TEST(bucket(ttft, 0.001) == 1);
    BOOST_TEST(bucket(ttft, 0.0025) == 1);
    BOOST_TEST(bucket(ttft, 0.005) == 2);
    BOOST_TEST(bucket(ttft, 0.05) == 3);
    BOOST_TEST(bucket(ttft, 1) == 3);
    BOOST_TEST(bucket(ttft, 2.5) == 4);
    BOOST_TEST(bucket(ttft, 300) == 4);
    BOOST_TEST(bucket(ttft, INFINITY) == 5);
    BOOST_TEST(*e.value("openloop_ttft_seconds_sum") == 402.0435, boost::test_tools::tolerance(1e-12));

    const auto itl = check_histogram(e, "openloop_itl_seconds", s.itl);
    BOOST_TEST(itl.size() == token_buckets().size() + 1);
    BOOST_TEST(bucket(itl, 0.0001) == 0);
    BOOST_TEST(bucket(itl, 0.00025) == 1);
    BOOST_TEST(bucket(itl, 0.025) == 631);
    const auto lag = check_histogram(e, "openloop_schedule_lag_seconds", s.lag);
    BOOST_TEST(lag.size() == lag_buckets().size() + 1);
    BOOST_TEST(bucket(lag, 0.00001) == 0);
    BOOST_TEST(bucket(lag, 0.00005) == 119);
    BOOST_TEST(bucket(lag, 1) == 119);
    BOOST_TEST(bucket(lag, INFINITY) == 120);
    check_histogram(e, "openloop_tpot_seconds", s.tpot);
    const auto e2e = check_histogram(e, "openloop_e2e_seconds", s.e2e);
    BOOST_TEST(bucket(e2e, 1) == 0);
    BOOST_TEST(bucket(e2e, 2.5) == 5);
}

BOOST_AUTO_TEST_CASE(bounds_are_their_labels) {
    for (const auto& bounds : {lag_buckets(), request_buckets(), token_buckets()}) {
        for (std::size_t i = 0; i < bounds.size(); ++i) {
            BOOST_TEST(parse_value(std::string(bounds[i].le)) * 1e9 == static_cast<double>(bounds[i].ns),
                       boost::test_tools::tolerance(1e-9));
            if (i > 0) BOOST_TEST(bounds[i].ns > bounds[i - 1].ns);
        }
    }
    BOOST_TEST(lag_buckets().front().ns == 10'000);
    BOOST_TEST(lag_buckets().back().ns == 1'000'000'000);
    BOOST_TEST(request_buckets().front().ns == 1'000'000);
    BOOST_TEST(request_buckets().back().ns == 300'000'000'000);
    BOOST_TEST(token_buckets().front().ns == 100'000);
    BOOST_TEST(token_buckets().back().ns == 10'000'000'000);
}

BOOST_AUTO_TEST_CASE(window_gauges_and_what_is_left_out) {
    const run_stats s = filled_stats();
    live_view v;
    v.stats = &s;
    {
        // No window closed, resources unknown: none of those families at all.
        const auto e = parse(format_live_metrics(v));
        for (const char* name : {"openloop_window_ttft_seconds", "openloop_window_itl_seconds",
                                 "openloop_window_achieved_rate", "openloop_window_offered_rate",
                                 "openloop_window_seconds", "openloop_generator_resident_memory_bytes",
                                 "openloop_generator_cpu_seconds_total"}) {
            BOOST_TEST(!e.has_family(name), name);
        }
    }
    v.window.seconds = 60;
    v.window.ttft_p50 = 41'200'000;
    v.window.ttft_p90 = 60'100'000;
    v.window.ttft_p99 = 80'300'000;
    v.window.itl_p99 = -1;  // no ITL sample in the window
    v.window.tpot_p99 = 22'000'000;
    v.window.e2e_p99 = 1'500'000'000;
    v.window.achieved_rate = 19.97;
    v.window.offered_rate = 20;
    const auto e = parse(format_live_metrics(v));
    BOOST_TEST(e.types.at("openloop_window_ttft_seconds") == "gauge");
    BOOST_TEST(*e.value("openloop_window_ttft_seconds", {{"quantile", "0.5"}}) == 0.0412,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(*e.value("openloop_window_ttft_seconds", {{"quantile", "0.9"}}) == 0.0601,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(*e.value("openloop_window_ttft_seconds", {{"quantile", "0.99"}}) == 0.0803,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(!e.has_family("openloop_window_itl_seconds"));
    BOOST_TEST(*e.value("openloop_window_tpot_seconds", {{"quantile", "0.99"}}) == 0.022,
               boost::test_tools::tolerance(1e-12));
    BOOST_TEST(*e.value("openloop_window_e2e_seconds", {{"quantile", "0.99"}}) == 1.5);
    BOOST_TEST(*e.value("openloop_window_seconds") == 60);
    BOOST_TEST(*e.value("openloop_window_achieved_rate") == 19.97);
    BOOST_TEST(*e.value("openloop_window_offered_rate") == 20);
}

BOOST_AUTO_TEST_CASE(empty_run_is_valid_text) {
    const run_stats s;
    live_view v;
    v.stats = &s;
    const auto e = parse(format_live_metrics(v));
    BOOST_TEST(*e.value("openloop_requests_started_total") == 0);
    const auto ttft = check_histogram(e, "openloop_ttft_seconds", s.ttft);
    for (const auto& b : ttft) BOOST_TEST(b.second == 0);
    BOOST_TEST(*e.value("openloop_ttft_seconds_sum") == 0);
}

BOOST_AUTO_TEST_CASE(null_stats_is_refused) {
    BOOST_CHECK_THROW(format_live_metrics(live_view{}), std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
