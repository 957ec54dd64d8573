#include <boost/test/unit_test.hpp>

// A soak's verdicts from its windows.jsonl: the growing signal is named in
// the headline with its slope, flat ones are not, warm-up windows stay out,
// and a torn last line (kill -9) costs that line only.

#include "openloop/results/run_html.hpp"
#include "openloop/results/soak_report.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_soak_report)

using namespace openloop;
namespace json = boost::json;

namespace {

// n windows of 60 s; server RSS grows by grow_mib_per_h on noise; TTFT flat;
// over the first warm windows RSS climbs to its level (a cache filling).
std::string windows_jsonl(int n, double grow_mib_per_h, int warm = 0, unsigned seed = 1) {
    std::mt19937 rng(seed);
    std::normal_distribution<double> noise(0, 2);
    std::string out;
    for (int i = 0; i < n; ++i) {
        const double t_end = 60.0 * (i + 1);
        const double rss = (i < warm ? 800.0 * i / warm : 800) + grow_mib_per_h * t_end / 3600 + noise(rng);
        json::object o{{"window", i},
                       {"t_start_s", t_end - 60},
                       {"t_end_s", t_end},
                       {"offered_rate", 10.0},
                       {"achieved_rate", 10.0 + noise(rng) / 20},
                       {"error_rate", 0.0},
                       {"ttft_ms", json::object{{"p50", 40 + noise(rng)}, {"p90", 50 + noise(rng)}, {"p99", 60 + noise(rng)}, {"max", 70}}},
                       {"generator", json::object{{"rss_mib", 12.0 + noise(rng) / 10}, {"cpu_pct", 3.0}}},
                       {"server", json::object{{"rss_mib", rss}, {"cpu_pct", 90.0}}},
                       {"signals", json::object{{"kv_usage", 0.2 + noise(rng) / 200}, {"running", 3}}},
                       {"scrape_failures", 0}};
        out += json::serialize(o) + "\n";
    }
    return out;
}

const soak_verdict& find(const soak_report& r, const std::string& key) {
    for (const auto& v : r.verdicts)
        if (v.key == key) return v;
    BOOST_FAIL("no verdict for " << key);
    throw std::logic_error("unreachable");
}

}  // namespace

BOOST_AUTO_TEST_CASE(growth_is_named_first_with_its_slope) {
    const soak_report r = judge_soak(parse_windows_jsonl(windows_jsonl(120, 400)), 2);
    BOOST_TEST(r.changed);
    BOOST_TEST(r.headline.find("server RSS (/proc) growth: +") != std::string::npos, r.headline);
    const auto& rss = find(r, "server_rss_mib");
    BOOST_TEST(std::string(to_string(rss.trend.kind)) == "growth");
    BOOST_TEST(std::abs(rss.trend.slope.slope - 400) < 20);
    BOOST_TEST(std::string(to_string(find(r, "generator_rss_mib").trend.kind)) == to_string(series_kind::no_change));
    BOOST_TEST(std::string(to_string(find(r, "ttft_p99_ms").trend.kind)) == to_string(series_kind::no_change));
    BOOST_TEST(std::string(to_string(find(r, "signals.kv_usage").trend.kind)) == to_string(series_kind::no_change));
    BOOST_TEST(find(r, "signals.running").label == "running");  // a scraped signal without an entry keeps its name
    const json::object j = soak_json(r);
    BOOST_TEST(j.at("changed").as_bool());
    BOOST_TEST(j.at("warmup_windows").to_number<int>() == 2);
    BOOST_TEST(format_soak(r).rfind(r.headline, 0) == 0u);
}

BOOST_AUTO_TEST_CASE(a_flat_soak_says_nothing_grows) {
    const soak_report r = judge_soak(parse_windows_jsonl(windows_jsonl(120, 0)), 2);
    BOOST_TEST(!r.changed, r.headline);
    BOOST_TEST(r.headline.rfind("soak: nothing grows or drifts", 0) == 0u, r.headline);
    BOOST_TEST(r.windows == 120u);
    BOOST_TEST(std::abs(r.hours - 117.0 / 60) < 1e-9);
}

BOOST_AUTO_TEST_CASE(warmup_windows_stay_out_of_the_trend) {
    // Half the windows climbing to the level would read as growth (Theil-Sen
    // shrugs off a few such windows, not this many).
    BOOST_TEST(judge_soak(parse_windows_jsonl(windows_jsonl(60, 0, 30)), 30).changed == false);
    BOOST_TEST(std::string(to_string(find(judge_soak(parse_windows_jsonl(windows_jsonl(60, 0, 30)), 0), "server_rss_mib")
                                         .trend.kind)) == "growth");
}

BOOST_AUTO_TEST_CASE(a_torn_last_line_is_counted_and_skipped) {
    std::string text = windows_jsonl(30, 0);
    text += text.substr(0, 40);  // kill -9 mid-write
    const soak_windows w = parse_windows_jsonl(text);
    BOOST_TEST(w.rows.size() == 30u);
    BOOST_TEST(w.bad_lines == 1u);
    BOOST_TEST(w.first_bad_line == 31u);
}

BOOST_AUTO_TEST_CASE(too_few_windows_are_not_judged) {
    const soak_report r = judge_soak(parse_windows_jsonl(windows_jsonl(4, 1000)), 2);
    BOOST_TEST(!r.changed);
    BOOST_TEST(r.headline.find("too few windows") != std::string::npos, r.headline);
}

BOOST_AUTO_TEST_CASE(a_signal_without_a_name_is_not_judged) {
    std::string text;
    for (int i = 1; i <= 10; ++i)
        text += "{\"t_end_s\":" + std::to_string(i * 60) + ",\"signals\":{\"\":" + std::to_string(i) + ",\"x\":1}}\n";
    const soak_report r = judge_soak(parse_windows_jsonl(text), 0);
    for (const auto& v : r.verdicts) BOOST_TEST(!v.label.empty());
    BOOST_TEST(r.verdicts.size() == 1u);  // signals.x only
}

BOOST_AUTO_TEST_CASE(the_last_partial_window_is_not_judged) {
    // A drain window at the end: a tenth of the rate would read as a throughput decline.
    std::string text;
    for (int i = 1; i <= 30; ++i)
        text += "{\"t_end_s\":" + std::to_string(i * 60) + ",\"achieved_rate\":" + std::to_string(10 + (i % 3) * 0.01) + "}\n";
    const std::string last = "{\"t_end_s\":1805,\"partial\":true,\"achieved_rate\":1.0}\n";
    const soak_report r = judge_soak(parse_windows_jsonl(text + last), 2);
    BOOST_TEST(r.partial_left_out);
    BOOST_TEST(std::abs(r.hours - 27.0 / 60) < 1e-9);  // windows 3 to 30 judged
    BOOST_TEST(!r.changed, r.headline);
    BOOST_TEST(r.windows == 31u);
}

// Damaged figures (a hand edit, a disk's bit flips): values no window holds
// are left out of their series and said, a window whose end is no time is a
// bad line, and the page draws what is left, never a coordinate of NaN.
BOOST_AUTO_TEST_CASE(damaged_values_are_skipped_and_said) {
    std::string text;
    std::size_t line = 0;
    for (const std::string& l : [&] {
             std::vector<std::string> lines;
             const std::string all = windows_jsonl(20, 0);
             for (std::size_t at = 0, nl; (nl = all.find('\n', at)) != std::string::npos; at = nl + 1)
                 lines.push_back(all.substr(at, nl - at));
             return lines;
         }()) {
        json::object o = json::parse(l).as_object();
        ++line;
        if (line == 5) o["ttft_ms"].as_object()["p99"] = 1e308;
        if (line == 6) o["ttft_ms"].as_object()["p99"] = -1e308;
        if (line == 7) o["generator"].as_object()["rss_mib"] = 1.7e308;
        if (line == 8) o["t_end_s"] = 1e300;
        text += json::serialize(o) + "\n";
    }
    const soak_windows w = parse_windows_jsonl(text);
    BOOST_TEST(w.rows.size() == 19u);
    BOOST_TEST(w.bad_lines == 1u);
    BOOST_TEST(w.first_bad_line == 8u);
    BOOST_TEST(w.skipped_values == 3u);
    BOOST_TEST(w.first_skipped == "window 4's ttft_ms.p99, 1e+308");
    const soak_report r = judge_soak(w, 2);
    BOOST_TEST(r.skipped == "3 damaged values left out of the trends, the first window 4's ttft_ms.p99, 1e+308");
    BOOST_TEST(format_soak(r).find("(" + r.skipped + ")") != std::string::npos);
    BOOST_TEST(soak_json(r).at("skipped").as_string() == r.skipped);
    const std::string page = run_report_html("soak", json::object{{"soak", soak_json(r)}}, "", text);
    BOOST_TEST(page.find("Skipped: 3 damaged values left out of the trends, the first window 4&#39;s ttft_ms.p99, 1e+308.") !=
               std::string::npos);
    for (auto at = page.find("<svg"); at != std::string::npos; at = page.find("<svg", at + 1)) {
        const std::string svg = page.substr(at, page.find("</svg>", at) - at);
        BOOST_TEST(svg.find("nan") == std::string::npos, "a NaN drawn: " << svg.substr(0, 300));
    }
    const auto& ttft = find(r, "ttft_p99_ms").points;
    const auto measured = std::count_if(ttft.begin(), ttft.end(), [](const trend_point& p) { return std::isfinite(p.value); });
    BOOST_TEST(measured == 19 - 2 - 2, "the windows after the warm-up but the two damaged ones");
}

// A window whose TTFA p99 never came (a request in it that never answered is infinitely
// late) fails the soak whatever the finite windows' trend: it is named with how many.
BOOST_AUTO_TEST_CASE(windows_whose_ttfa_p99_never_came_fail_the_soak) {
    std::string text;
    for (int i = 0; i < 30; ++i) {
        const bool never = i >= 20;
        json::object o{{"window", i},
                       {"t_start_s", 60.0 * i},
                       {"t_end_s", 60.0 * (i + 1)},
                       {"achieved_rate", 10.0},
                       {"error_rate", 0.0},
                       {"ttft_ms", json::object{{"p50", 40.0}, {"p90", 50.0}, {"p99", 60.0}, {"max", 70.0}}},
                       {"ttfa_ms", json::object{{"p50", 400.0},
                                                {"p90", 500.0},
                                                {"p99", never ? json::value("inf") : json::value(600.0)},
                                                {"max", never ? json::value("inf") : json::value(700.0)},
                                                {"never_answered", never ? 2 : 0}}}};
        text += json::serialize(o) + "\n";
    }
    const soak_report r = judge_soak(parse_windows_jsonl(text), 2);
    BOOST_TEST(r.changed, r.headline);
    BOOST_TEST(r.headline.find("TTFA p99 infinite in 10 of 28 windows") != std::string::npos, r.headline);
    const json::object j = soak_json(r);
    BOOST_TEST(j.at("changed").as_bool());
}

BOOST_AUTO_TEST_SUITE_END()
