#include <boost/test/unit_test.hpp>

// report.html's pure parts: the chart's axes and points, the page's
// escaping, the CDF and the CSV a run's page is drawn from, and what each
// kind of page says first.

#include "openloop/measure/histogram.hpp"
#include "openloop/results/compare_html.hpp"
#include "openloop/results/run_html.hpp"
#include "openloop/results/svg_chart.hpp"
#include "openloop/results/sweep_html.hpp"

#include <boost/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_html_report)

using namespace openloop;
namespace json = boost::json;

namespace {

std::size_t count(const std::string& text, const std::string& part) {
    std::size_t n = 0;
    for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
    return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(linear_ticks_fall_on_one_two_five) {
    BOOST_TEST(linear_ticks(0, 1000) == (std::vector<double>{0, 200, 400, 600, 800, 1000}), boost::test_tools::per_element());
    BOOST_TEST(linear_ticks(0.3, 2.7) == (std::vector<double>{0.5, 1, 1.5, 2, 2.5}), boost::test_tools::per_element());
    BOOST_TEST(linear_ticks(-10, 10) == (std::vector<double>{-10, -5, 0, 5, 10}), boost::test_tools::per_element());
    BOOST_TEST(linear_ticks(3, 3) == std::vector<double>{3});
    BOOST_TEST(linear_ticks(NAN, 1).empty());
}

BOOST_AUTO_TEST_CASE(linear_ticks_end_where_the_span_is_below_a_doubles_resolution) {
    // A soak window's value of 1e20 beside its next double: stepping by the
    // nice step never moved, and the fuzzer found the loop that never ended.
    const double lo = 1e20, hi = std::nextafter(lo, INFINITY);
    BOOST_TEST(linear_ticks(lo, hi) == (std::vector<double>{lo, hi}), boost::test_tools::per_element());
    const std::vector<double> near = linear_ticks(1e15, 1e15 + 64);
    BOOST_TEST(near.size() <= 7u);
    BOOST_TEST(std::is_sorted(near.begin(), near.end()));
    BOOST_TEST(linear_ticks(-1e308, 1e308).size() <= 7u);
}

BOOST_AUTO_TEST_CASE(log_ticks_mark_each_decade) {
    BOOST_TEST(log_ticks(10, 1000) == (std::vector<double>{10, 20, 50, 100, 200, 500, 1000}),
               boost::test_tools::per_element());
    // Over six decades only the decades: a label per tick stays readable.
    BOOST_TEST(log_ticks(1, 1e6) == (std::vector<double>{1, 10, 100, 1e3, 1e4, 1e5, 1e6}),
               boost::test_tools::per_element());
    BOOST_TEST(log_ticks(0, 10).empty());
}

BOOST_AUTO_TEST_CASE(tick_labels_have_the_digits_their_step_needs) {
    BOOST_TEST(tick_text(0.25, 0.05) == "0.25");
    BOOST_TEST(tick_text(1.5, 0.5) == "1.5");
    BOOST_TEST(tick_text(1500, 500) == "1500");
    BOOST_TEST(tick_text(20000, 5000) == "20k");
    BOOST_TEST(tick_text(25000, 2500) == "25.0k");
    BOOST_TEST(tick_text(3e6, 1e6) == "3M");
    BOOST_TEST(tick_text(0.002, 0.002) == "0.002");
}

BOOST_AUTO_TEST_CASE(a_chart_draws_its_finite_points_and_escapes_its_words) {
    chart_spec c("t<1>", "a & b", "time (s)", "value", false);
    c.series.emplace_back("<script>x</script>", std::vector<chart_point>{{0, 1}, {1, NAN}, {2, 3}, {NAN, 4}});
    c.series.emplace_back("log", std::vector<chart_point>{{1, 2}});
    c.rules.push_back({true, 1.5, "knee \"1.5\""});
    const std::string svg = svg_chart(c);
    BOOST_TEST(svg.find("data-chart=\"t&lt;1&gt;\"") != std::string::npos);
    BOOST_TEST(svg.find("data-series=\"&lt;script&gt;x&lt;/script&gt;\" data-points=\"2\"") != std::string::npos, svg);
    BOOST_TEST(svg.find("data-points=\"1\"") != std::string::npos);
    BOOST_TEST(svg.find("<script") == std::string::npos);
    BOOST_TEST(svg.find("knee &quot;1.5&quot;") != std::string::npos);
    BOOST_TEST(svg.find(">time (s)</text>") != std::string::npos);
    BOOST_TEST(count(svg, "<title>") == 1 + 3 + 1);  // the chart's, a point's each, the rule's

    // A log axis draws 0 at its low edge and leaves out what lies below; nothing to show says so.
    chart_spec l("l", "log", "x", "y", true);
    l.series.emplace_back("s", std::vector<chart_point>{{0, 1}, {-1, 1}, {10, 1}});
    BOOST_TEST(svg_chart(l).find("data-points=\"2\"") != std::string::npos);
    chart_spec empty("e", "empty", "x", "y");
    empty.series.emplace_back("s");
    BOOST_TEST(svg_chart(empty).find("class=\"no-data\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_cdf_runs_from_the_minimum_to_the_maximum) {
    histogram h;
    for (const std::int64_t ms : {5, 1, 3, 2, 4}) h.record(ms * 1'000'000);
    const auto few = cdf_points(h);
    BOOST_TEST_REQUIRE(few.size() == 6u);
    BOOST_TEST(few.front().x == 1.0, boost::test_tools::tolerance(1e-3));
    BOOST_TEST(few.back().x == 5.0, boost::test_tools::tolerance(1e-3));
    BOOST_TEST(few.front().y == 0.0);
    BOOST_TEST(few.back().y == 1.0);
    for (std::size_t i = 1; i < few.size(); ++i) BOOST_TEST((few[i].x >= few[i - 1].x && few[i].y > few[i - 1].y));
    for (int i = 0; i < 1000; ++i) h.record(i * 10'000);
    BOOST_TEST(cdf_points(h).size() == 201u);
    BOOST_TEST(cdf_points(histogram()).empty());
}

// Chunks read at once have an ITL of 0: every step of their share is drawn,
// at the log axis's left edge, so the curve rises there (CI saw 200 of 201).
BOOST_AUTO_TEST_CASE(a_cdf_with_zeros_draws_every_step_from_the_left_edge) {
    histogram h;
    for (int i = 0; i < 300; ++i) h.record(i % 3 == 0 ? 0 : 20'000'000 + i * 10'000);
    chart_spec c("c", "cdf", "latency (ms, log scale)", "fraction", true);
    c.series.emplace_back("ITL", cdf_points(h));
    BOOST_TEST_REQUIRE(c.series[0].points.front().x == 0.0);
    const std::string svg = svg_chart(c);
    BOOST_TEST(svg.find("data-points=\"201\"") != std::string::npos, svg.substr(0, 400));
    // The first point lies on the plot's left edge, the frame's x.
    const auto frame = svg.find("<rect x=\"");
    const std::string left = svg.substr(frame + 9, svg.find('"', frame + 9) - frame - 9);
    BOOST_TEST(svg.find("<circle cx=\"" + left + "\"") != std::string::npos, left);
    BOOST_TEST(svg.find("ITL: 0 at 0") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_timeseries_reads_by_column_blank_cells_missing) {
    const csv_columns c = parse_numeric_csv("t_s,offered,ttft_p50_ms\n0.000,4,\n1.000,8,47.5\nnot,a,row\n\n2.000,9,50\n");
    BOOST_TEST(c.rows.size() == 3u);
    BOOST_TEST(c.column("offered") == (std::vector<double>{4, 8, 9}), boost::test_tools::per_element());
    BOOST_TEST(std::isnan(c.column("ttft_p50_ms")[0]));
    BOOST_TEST(c.column("ttft_p50_ms")[1] == 47.5);
    BOOST_TEST(c.column("none").empty());
}

BOOST_AUTO_TEST_CASE(a_runs_page_leads_with_its_verdict) {
    const json::object summary = json::parse(R"({
        "validity": {"valid": false, "reasons": ["error rate 5 % <above> the 1 % bound"]},
        "arrival": "poisson 8 req/s", "request_throughput": 7.5, "p99_ttft_ms": 120.5, "p99_e2el_ms": 900,
        "error_rate": 0.05, "partial_reason": "interrupted by a signal",
        "config": {"target": "http://127.0.0.1:8000", "header": ["Authorization: <redacted>"]}})").as_object();
    const std::string page = run_report_html("dir <1>", summary, "", "");
    BOOST_TEST(page.starts_with("<!DOCTYPE html>"));
    BOOST_TEST(page.find("<title>openloop run: dir &lt;1&gt;</title>") != std::string::npos);
    BOOST_TEST(page.find("data-verdict=\"INVALID\"") != std::string::npos);
    BOOST_TEST(page.find("verdict bad") != std::string::npos);
    BOOST_TEST(page.find("error rate 5 % &lt;above&gt; the 1 % bound") != std::string::npos);
    BOOST_TEST(page.find("partial: interrupted by a signal") != std::string::npos);
    // The verdict comes before any chart, the parameters after them.
    BOOST_TEST(page.find("id=\"verdict\"") < page.find("<figure"));
    BOOST_TEST(page.find("<figure") < page.find("data-table=\"config\""));
    BOOST_TEST(page.find("Authorization: &lt;redacted&gt;") != std::string::npos);
    // No script, no fetch: the file is the whole page.
    BOOST_TEST(page.find("<script") == std::string::npos);
    BOOST_TEST(page.find("http://127.0.0.1:8000\"") == std::string::npos);  // the target is text, not a link
    BOOST_TEST(page.find("src=") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_sweeps_page_names_its_knee_and_marks_it) {
    const json::object sweep = json::parse(R"({
        "stages": [
          {"index": 0, "offered_rate": 2, "concurrency": null, "achieved_rate": 2.01, "completed": 40, "error_rate": 0,
           "mean_inflight": 1.1, "verdict": "good", "ttft_ms": {"p50": 30, "p99": 50, "p99_ci": [45, 60]}},
          {"index": 1, "offered_rate": 4, "concurrency": null, "achieved_rate": 3.2, "completed": 60, "error_rate": 0,
           "mean_inflight": 9, "verdict": "saturated", "ttft_ms": {"p50": 900, "p99": 2500, "p99_ci": null}}],
        "knees": {"slo": {"found": true, "rate": 2, "explanation": "every stage up to 2 req/s pass"},
                  "saturation": {"found": true, "rate": 2, "explanation": "saturation knee at 2 req/s"}},
        "capacity": {"text": "At the SLO knee the server sustains 2.01 req/s."},
        "slos": [{"text": "ttft_p99=1s", "metric": "ttft", "stat": "p99", "limit": 1000}],
        "interrupted": false})").as_object();
    const std::string page = sweep_report_html("sw", sweep);
    BOOST_TEST(page.find("data-verdict=\"SLO KNEE AT 2 req/s\"") != std::string::npos);
    BOOST_TEST(page.find("At the SLO knee the server sustains 2.01 req/s.") != std::string::npos);
    BOOST_TEST(page.find(">SLO ttft_p99=1s</text>") != std::string::npos);
    BOOST_TEST(page.find(">SLO knee 2 req/s</text>") != std::string::npos);
    BOOST_TEST(page.find(">saturation knee 2 req/s</text>") != std::string::npos);
    // The first stage's p99 carries its interval as an error bar; the second has none.
    BOOST_TEST(page.find("50 at 2 (45 .. 60)") != std::string::npos);
    BOOST_TEST(page.find("data-series=\"achieved\" data-points=\"2\"") != std::string::npos);

    // A p95 SLO is read against the p95: its series is drawn beside p50 and p99.
    json::object p95 = sweep;
    p95["slos"] = json::parse(R"([{"text": "ttft_p95=1s", "metric": "ttft", "stat": "p95", "limit": 1000}])");
    const std::string p95_page = sweep_report_html("sw", p95);
    BOOST_TEST(p95_page.find("data-series=\"TTFT p95\"") != std::string::npos);
    BOOST_TEST(p95_page.find("TTFT by stage: p50, p95 and p99") != std::string::npos);
    BOOST_TEST(page.find("data-series=\"TTFT p95\"") == std::string::npos);

    json::object cut = sweep;
    cut["interrupted"] = true;
    cut["interruption"] = "SIGINT";
    const std::string cut_page = sweep_report_html("sw", cut);
    BOOST_TEST(cut_page.find("data-verdict=\"INTERRUPTED\"") != std::string::npos);
    BOOST_TEST(cut_page.find("interrupted: SIGINT") != std::string::npos);
}

// A bisection runs stages out of rate order: the banner's explanation names
// a stage by the number it ran as (its directory's), and so does the table.
BOOST_AUTO_TEST_CASE(a_sweeps_stage_table_numbers_stages_as_they_ran) {
    const json::object sweep = json::parse(R"({
        "stages": [
          {"index": 0, "run": 1, "offered_rate": 1, "achieved_rate": 1, "completed": 20, "error_rate": 0, "verdict": "good"},
          {"index": 1, "run": 3, "offered_rate": 3, "achieved_rate": 3, "completed": 60, "error_rate": 0, "verdict": "good"},
          {"index": 2, "run": 2, "offered_rate": 4, "achieved_rate": 3.1, "completed": 60, "error_rate": 0,
           "verdict": "saturated"}],
        "knees": {"saturation": {"found": true, "rate": 3, "stage": 1,
                                 "explanation": "saturation knee at 3 req/s (stage 3), ..."}},
        "interrupted": false})").as_object();
    const std::string page = sweep_report_html("sw", sweep);
    BOOST_TEST(page.find("(stage 3)") != std::string::npos);
    BOOST_TEST(page.find("<tr><td>3</td><td>3</td>") != std::string::npos, "the 3 req/s stage is stage 3 in the table");
    BOOST_TEST(page.find("<tr><td>2</td><td>4</td>") != std::string::npos);
    // An older sweep.json, without the order stages ran in: its rate order.
    json::object old = sweep;
    for (auto& stage : old["stages"].as_array()) stage.as_object().erase("run");
    BOOST_TEST(sweep_report_html("sw", old).find("<tr><td>1</td><td>3</td>") != std::string::npos);
}

// A time's label near the plot's right edge (a knee at the highest stages)
// reads to the left of its line: all of it inside the drawing, at a generous
// 6.5 px a character of 11 px text.
BOOST_AUTO_TEST_CASE(a_rule_label_at_the_right_edge_stays_in_the_drawing) {
    chart_spec c{"c", "t", "x", "y"};
    c.series.emplace_back("s", std::vector<chart_point>{{1, 1}, {2, 2}, {4.6, 3}}, true, true);
    const std::string label = "saturation knee 4.55515 req/s";
    for (const double at : {1.0, 4.55515}) {
        c.rules = {{true, at, label}};
        const std::string svg = svg_chart(c);
        const auto text = svg.find("class=\"rule-label\"");
        BOOST_TEST_REQUIRE(text != std::string::npos);
        const auto open = svg.rfind("<text x=\"", text);
        const double x = std::stod(svg.substr(open + 9));
        const bool to_left = svg.substr(open, text - open).find("text-anchor=\"end\"") != std::string::npos;
        const double from = to_left ? x - 6.5 * label.size() : x, to = to_left ? x : x + 6.5 * label.size();
        BOOST_TEST(from >= 0, "label from " << from << " at " << at);
        BOOST_TEST(to <= 680, "label to " << to << " at " << at << ": cut at the drawing's edge");
        BOOST_TEST(to_left == (at > 4), "reads to the left only where it must");
    }
}

BOOST_AUTO_TEST_CASE(a_comparisons_page_names_what_got_worse_and_plots_every_change) {
    const json::object c = json::parse(R"({
        "base": "runs/<a>", "new": "runs/b", "base_requests": 400, "new_requests": 410, "confidence": 0.99,
        "min_change": 0.01, "workloads_differ": false,
        "differences": [{"aspect": "target", "field": "target", "first": "http://a", "second": "http://b", "workload": false}],
        "metrics": {
          "ttft_p99": {"unit": "ms", "verdict": "worse", "base": 100, "new": 150, "change": 50, "relative": 0.5,
                       "interval_99": [30, 70]},
          "request_throughput": {"unit": "req/s", "verdict": "within noise", "base": 10, "new": 10.05, "change": 0.05,
                                 "relative": 0.005, "interval_99": [-0.2, 0.3]},
          "error_rate": {"unit": "fraction", "verdict": "no data", "base": 0, "new": 0, "change": 0, "relative": null,
                         "interval_99": null}}})").as_object();
    const std::string page = compare_report_html(c, {"ttft_p99>+10%: +50.0 %"});
    BOOST_TEST(page.find("data-verdict=\"GATE FAILED\"") != std::string::npos);
    BOOST_TEST(page.find("gate failed: ttft_p99&gt;+10%: +50.0 %") != std::string::npos);
    BOOST_TEST(page.find("worse: ttft_p99") != std::string::npos);
    BOOST_TEST(page.find("runs/&lt;a&gt;") != std::string::npos);
    BOOST_TEST(page.find("data-table=\"differences\"") != std::string::npos);
    // A row per metric; the one without a relative change has no dot.
    BOOST_TEST(page.find("data-series=\"ttft_p99\" data-verdict=\"worse\" data-points=\"1\"") != std::string::npos);
    BOOST_TEST(page.find("data-series=\"error_rate\" data-verdict=\"no data\" data-points=\"0\"") != std::string::npos);
    // The interval as a share of base: 30 .. 70 ms of 100 ms.
    BOOST_TEST(page.find("ttft_p99: +50.0 % (+30.0 .. +70.0), worse") != std::string::npos);
    json::object fine = c;
    fine["metrics"].as_object()["ttft_p99"].as_object()["verdict"] = "within noise";
    BOOST_TEST(compare_report_html(fine, {}).find("data-verdict=\"WITHIN NOISE\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_long_runs_seconds_are_drawn_in_groups) {
    // Ten hours of seconds: drawn as at most 600 points a series, the page stays small.
    std::string csv = "t_s,offered,refused,completed,failed,in_flight,output_tokens,ttft_p50_ms,ttft_p99_ms,generator_rss_mb\n";
    for (int i = 0; i < 36'000; ++i)
        csv += std::to_string(i) + ",10,0,10,0," + std::to_string(i % 97 == 0 ? 500 : 5) + ",1280,40.5,90.25,20.0\n";
    const json::object summary{{"validity", json::object{{"valid", true}, {"reasons", json::array{}}}}};
    const std::string page = run_report_html("long", summary, csv, "");
    BOOST_TEST(page.find("data-series=\"offered\" data-points=\"600\"") != std::string::npos);
    BOOST_TEST(page.find("data-series=\"in flight\" data-points=\"600\"") != std::string::npos);
    // A group's peak is its highest second: the bursts of 500 in flight stay visible.
    BOOST_TEST(page.find("in flight: 500 at") != std::string::npos);
    BOOST_TEST(page.size() < 1'000'000u, page.size());
}

BOOST_AUTO_TEST_CASE(a_sessions_run_is_drawn_by_turn) {
    const json::object summary = json::parse(R"({"validity": {"valid": true, "reasons": []},
        "sessions": {"by_turn": [
          {"turn": 1, "completed": 20, "ttft_ms": {"p50": 40, "p99": 80}, "e2el_ms": {"p50": 400}, "mean_prompt_tokens": 512},
          {"turn": 2, "completed": 20, "ttft_ms": {"p50": 60, "p99": 95}, "e2el_ms": {"p50": 450}, "mean_prompt_tokens": 900},
          {"turn": 3, "and_later": true, "completed": 18, "ttft_ms": {"p50": 70, "p99": null}, "e2el_ms": {"p50": 480}}]}})")
                                     .as_object();
    const std::string page = run_report_html("s", summary, "", "");
    BOOST_TEST(page.find("data-chart=\"by_turn\"") != std::string::npos);
    BOOST_TEST(page.find("data-series=\"TTFT p50\" data-points=\"3\"") != std::string::npos);
    BOOST_TEST(page.find("data-series=\"TTFT p99\" data-points=\"2\"") != std::string::npos);  // turn 3 has none
    BOOST_TEST(page.find("<td>3+</td>") != std::string::npos, "the last row holds the later turns too");
}

BOOST_AUTO_TEST_SUITE_END()
