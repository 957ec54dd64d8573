#include <boost/test/unit_test.hpp>

// report.html as a person sees it: a run, a sweep and a soak against the
// simulator, each page opened in Debian's chromium (headless, through
// playwright-core: tools/browser-check/check-page.mjs reads the DOM), and
// what it shows compared with the result's own files: the verdict, every
// chart's points and axes, the tables' figures. A screenshot of each page is
// kept in the build's test-artefacts/. The live page of --metrics-listen is
// opened during a run and seen to grow.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_report_html)

namespace json = boost::json;
namespace fs = std::filesystem;
using namespace test_http;

namespace {

// Where the screenshots stay after the test: beside the binary it ran.
std::string artefact(const std::string& name) {
    const fs::path dir = fs::path(openloop_test::bin).parent_path() / "test-artefacts";
    fs::create_directories(dir);
    return (dir / name).string();
}

// What the browser saw on the page: check-page.mjs's JSON (with --watch, its
// state once a second for that many seconds).
json::object open_in_browser(const temp_dir& dir, const std::string& page, const std::string& screenshot,
                             int watch = 0) {
    const std::string script = std::string(openloop_test::source_dir) + "/tools/browser-check/check-page.mjs";
    const std::string out = dir.file("page.json"), err = dir.file("page.err");
    const std::string cmd = "node '" + script + "' '" + page + "' --screenshot '" + screenshot + "' --watch " +
                            std::to_string(watch) + " > " + out + " 2> " + err;
    const int rc = std::system(cmd.c_str());
    BOOST_TEST_REQUIRE(rc == 0, "check-page.mjs failed (" << rc << "): " << slurp(err));
    json::object seen = json::parse(slurp(out)).as_object();
    BOOST_TEST(seen.at("console_errors").as_array().empty(), seen.at("console_errors"));
    BOOST_TEST(seen.at("page_errors").as_array().empty(), seen.at("page_errors"));
    BOOST_TEST(seen.at("outside_requests").as_array().empty(), "the page fetched " << seen.at("outside_requests"));
    BOOST_TEST(fs::file_size(screenshot) > 20'000u);
    return seen;
}

const json::object& chart(const json::object& seen, std::string_view id) {
    for (const auto& c : seen.at("charts").as_array())
        if (c.at("id").as_string() == id) return c.as_object();
    BOOST_FAIL("no chart " << id << " on the page");
    throw std::logic_error("unreachable");
}

// A series' drawn points; -1 when the chart has no such series.
long points(const json::object& chart, std::string_view series) {
    for (const auto& s : chart.at("series").as_array())
        if (s.at("name").as_string() == series) return s.at("points").to_number<long>();
    return -1;
}

std::string label(const json::object& chart, const char* axis) { return std::string(chart.at(axis).as_string()); }

const json::array& table(const json::object& seen, std::string_view id) { return seen.at("tables").at(id).as_array(); }

// A cell printed at about four significant digits is the value it stands for.
bool printed_as(const json::value& cell, double value) {
    const double printed = std::stod(std::string(cell.as_string()));
    return std::fabs(printed - value) <= 5e-4 * std::fabs(value) + 5e-4;
}

double number(const json::object& o, std::string_view key) { return o.at(key).to_number<double>(); }

// Rows of a CSV file after its header; with column c non-empty when c >= 0.
long csv_rows(const std::string& path, int c = -1) {
    std::istringstream in(slurp(path));
    std::string line;
    std::getline(in, line);
    long n = 0;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        if (c < 0) {
            ++n;
            continue;
        }
        std::size_t from = 0;
        for (int i = 0; i < c; ++i) from = line.find(',', from) + 1;
        if (from < line.size() && line[from] != ',') ++n;
    }
    return n;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_runs_report_shows_its_summary) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const std::string out = dir.file("run");
    const int rc = run_openloop({"--target", sim.url, "--rate", "10", "--duration", "4s", "--input-len", "64",
                                 "--output-len", "16", "--out", out},
                                dir.file("run.log"));
    const std::string log = slurp(dir.file("run.log"));
    BOOST_TEST_REQUIRE((rc == 0 || rc == 3), log);
    BOOST_TEST(log.find("report:  " + out + "/report.html") != std::string::npos, log);
    const json::object summary = read_json(out + "/summary.json");
    const json::object seen = open_in_browser(dir, out + "/report.html", artefact("report-run.png"));

    BOOST_TEST(seen.at("kind").as_string() == "run");
    const bool valid = summary.at("validity").at("valid").as_bool();
    BOOST_TEST(seen.at("verdict").at("word").as_string() == (valid ? "VALID" : "INVALID"));
    BOOST_TEST(seen.at("verdict").at("reasons").as_array().size() ==
               summary.at("validity").at("reasons").as_array().size());

    // The CDFs: one point per request up to 200, then 201; nothing drawn for the answer's clocks of a
    // model that did not think.
    const auto& histograms = summary.at("histograms").as_object();
    const auto cdf = [&](const char* key) {
        return std::min<long>(histograms.at(key).at("count").to_number<long>(), 200) + 1;
    };
    const auto& latency = chart(seen, "latency_cdf");
    BOOST_TEST(points(latency, "TTFT") == cdf("ttft"));
    BOOST_TEST(points(latency, "E2E") == cdf("e2el"));
    BOOST_TEST(points(latency, "TTFA") == -1);
    BOOST_TEST(label(latency, "x_label") == "latency (ms, log scale)");
    BOOST_TEST(label(latency, "y_label") == "fraction of requests");
    BOOST_TEST(points(chart(seen, "token_latency_cdf"), "TPOT") == cdf("tpot"));
    BOOST_TEST(points(chart(seen, "token_latency_cdf"), "ITL") == cdf("itl"));

    // The seconds: a point per row of timeseries.csv, TTFT only in seconds when a request ended.
    const std::string csv = out + "/timeseries.csv";
    const auto& rates = chart(seen, "rates");
    for (const char* s : {"offered", "completed", "failed"}) BOOST_TEST(points(rates, s) == csv_rows(csv), s);
    BOOST_TEST(label(rates, "x_label") == "time (s)");
    BOOST_TEST(points(chart(seen, "in_flight"), "in flight") == csv_rows(csv));
    BOOST_TEST(points(chart(seen, "ttft_over_time"), "TTFT p50") == csv_rows(csv, 7));
    // A point per input-length bucket that completed a request.
    long buckets = 0;
    for (const auto& b : summary.at("by_input_length").as_array()) buckets += number(b.as_object(), "completed") > 0;
    BOOST_TEST(points(chart(seen, "by_input_length"), "TTFT p99") == buckets);
    BOOST_TEST(table(seen, "by_input_length").size() == summary.at("by_input_length").as_array().size());

    // The tables print the summary's figures.
    bool ttft_row = false;
    for (const auto& row : table(seen, "latency")) {
        const auto& cells = row.as_array();
        if (cells[0].as_string() != "TTFT") continue;
        ttft_row = true;
        const char* stats[] = {"mean", "p50", "p90", "p95", "p99", "p99.9", "min", "max"};
        for (std::size_t i = 0; i < 8; ++i) {
            const double v = number(summary, std::string(stats[i]) + "_ttft_ms");
            BOOST_TEST(printed_as(cells[i + 1], v), stats[i] << ": " << cells[i + 1] << " against " << v);
        }
    }
    BOOST_TEST(ttft_row);
    for (const auto& row : table(seen, "requests")) {
        const auto& cells = row.as_array();
        const std::string figure(cells[0].as_string());
        BOOST_TEST(printed_as(cells[1], number(summary, figure)), figure << ": " << cells[1]);
    }

    // Compared with itself: nothing changed, a row of the forest plot per metric compared.
    BOOST_TEST(openloop_cli({"compare", out, out, "--html", dir.file("compare.html"), "--json", "--out",
                             dir.file("compare.json")},
                            dir.file("compare.log")) == 0,
               slurp(dir.file("compare.log")));
    const json::object comparison = read_json(dir.file("compare.json"));
    const json::object compared = open_in_browser(dir, dir.file("compare.html"), artefact("report-compare.png"));
    BOOST_TEST(compared.at("kind").as_string() == "compare");
    BOOST_TEST(compared.at("verdict").at("word").as_string() == "WITHIN NOISE");
    const auto& metrics = comparison.at("metrics").as_object();
    BOOST_TEST(chart(compared, "forest").at("series").as_array().size() == metrics.size());
    for (const auto& row : table(compared, "changes")) {
        const auto& cells = row.as_array();
        const auto& m = metrics.at(std::string(cells[0].as_string())).as_object();
        BOOST_TEST(printed_as(cells[1], number(m, "base")), cells[0] << ": " << cells[1]);
        BOOST_TEST(cells[7].as_string() == m.at("verdict").as_string());
    }

    // A merge (here of the run with itself, as two repeats): its page is a run's, its counts the sum.
    BOOST_TEST(openloop_cli({"merge", out, out, "--out", dir.file("merged")}, dir.file("merge.log")) == 0,
               slurp(dir.file("merge.log")));
    const json::object merged_summary = read_json(dir.file("merged/summary.json"));
    const json::object merged = open_in_browser(dir, dir.file("merged/report.html"), artefact("report-merge.png"));
    BOOST_TEST(merged.at("kind").as_string() == "merge");
    BOOST_TEST(number(merged_summary, "completed") == 2 * number(summary, "completed"));
    BOOST_TEST(points(chart(merged, "latency_cdf"), "TTFT") == std::min<long>(2 * (cdf("ttft") - 1), 200) + 1);
    for (const auto& row : table(merged, "requests")) {
        const auto& cells = row.as_array();
        const std::string figure(cells[0].as_string());
        BOOST_TEST(printed_as(cells[1], number(merged_summary, figure)), figure << ": " << cells[1]);
    }

    // Any result directory, old ones too: `openloop report DIR --html` draws the same page again.
    const std::string first = slurp(out + "/report.html");
    fs::remove(out + "/report.html");
    BOOST_TEST(openloop_cli({"report", out, "--html"}, dir.file("report.log")) == 0, slurp(dir.file("report.log")));
    BOOST_TEST(slurp(out + "/report.html") == first);
}

BOOST_AUTO_TEST_CASE(a_sweeps_report_shows_its_knees_and_stages) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const std::string out = dir.file("sweep");
    const int rc = openloop_cli({"sweep", "--progress", "off", "--lag-bound", "250ms", "--target", sim.url, "--rates",
                                 "2,6", "--stage-duration", "3s", "--min-samples", "10", "--stage-extension", "1",
                                 "--cooldown", "0.2s", "--warmup", "1s", "--slo", "ttft_p99=1s", "--input-len", "64",
                                 "--output-len", "8", "--out", out},
                                dir.file("sweep.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("sweep.log")));
    const json::object sweep = read_json(out + "/sweep.json");
    const json::object seen = open_in_browser(dir, out + "/report.html", artefact("report-sweep.png"));
    BOOST_TEST(seen.at("kind").as_string() == "sweep");

    const auto& stages = sweep.at("stages").as_array();
    const auto& slo = sweep.at("knees").at("slo").as_object();
    const std::string word(seen.at("verdict").at("word").as_string());
    if (slo.at("found").as_bool()) {
        char rate[32];
        std::snprintf(rate, sizeof rate, "%.4g", number(slo, "rate"));
        BOOST_TEST(word == "SLO KNEE AT " + std::string(rate) + " req/s");
    } else {
        BOOST_TEST(word.rfind("SLO KNEE", 0) != 0u, word);
    }
    BOOST_TEST(seen.at("headline").as_string() == sweep.at("capacity").at("text").as_string());

    const auto& throughput = chart(seen, "throughput");
    BOOST_TEST(points(throughput, "achieved") == static_cast<long>(stages.size()));
    BOOST_TEST(label(throughput, "x_label") == "offered rate (req/s)");
    const auto& ttft = chart(seen, "latency_ttft");
    BOOST_TEST(points(ttft, "TTFT p99") == static_cast<long>(stages.size()));
    bool slo_marked = false;
    for (const auto& r : ttft.at("rules").as_array()) slo_marked = slo_marked || r.as_string() == "SLO ttft_p99=1s";
    BOOST_TEST(slo_marked, ttft.at("rules"));
    // Every curve has a point per stage, on the offered rate's axis.
    for (const char* id : {"throughput", "latency_ttft", "latency_e2e", "in_flight", "error_rate"}) {
        const auto& c = chart(seen, id);
        BOOST_TEST(label(c, "x_label") == "offered rate (req/s)", id);
        BOOST_TEST(c.at("series").as_array().front().at("points").to_number<long>() == static_cast<long>(stages.size()),
                   id);
    }

    const auto& rows = table(seen, "stages");
    BOOST_TEST_REQUIRE(rows.size() == stages.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& cells = rows[i].as_array();
        const auto& stage = stages[i].as_object();
        BOOST_TEST(printed_as(cells[1], number(stage, "offered_rate")));
        BOOST_TEST(printed_as(cells[2], number(stage, "achieved_rate")), cells[2] << " " << stage.at("achieved_rate"));
        BOOST_TEST(printed_as(cells[6], number(stage.at("ttft_ms").as_object(), "p99")));
        BOOST_TEST(cells[9].as_string() == stage.at("verdict").as_string());
    }
}

BOOST_AUTO_TEST_CASE(a_soaks_report_shows_each_signal_as_judged) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const std::string out = dir.file("soak");
    openloop_cli({"soak", "--progress", "off", "--lag-bound", "250ms", "--target", sim.url, "--rate", "5", "--duration",
                  "10s", "--interval", "1s", "--warmup-windows", "2", "--input-len", "32", "--output-len", "8",
                  "--scrape", sim.url + "/metrics", "--out", out},
                 dir.file("soak.log"));
    const json::object summary = read_json(out + "/summary.json");
    const json::object seen = open_in_browser(dir, out + "/report.html", artefact("report-soak.png"));
    BOOST_TEST(seen.at("kind").as_string() == "soak");
    const auto& soak = summary.at("soak").as_object();
    BOOST_TEST(seen.at("paragraphs").at("soak_headline").as_string() == soak.at("headline").as_string());
    const auto& verdicts = soak.at("verdicts").as_array();
    const auto& rows = table(seen, "soak_verdicts");
    BOOST_TEST_REQUIRE(rows.size() == verdicts.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const auto& v = verdicts[i].as_object();
        BOOST_TEST(rows[i].as_array()[1].as_string() == v.at("verdict").as_string());
        BOOST_TEST(rows[i].as_array()[2].as_string() == v.at("text").as_string());
        const auto& c = chart(seen, "soak_" + std::string(v.at("signal").as_string()));
        BOOST_TEST(points(c, "window") == v.at("n").to_number<long>(), v.at("signal"));
        BOOST_TEST(label(c, "x_label") == "time (s)");
    }
}

BOOST_AUTO_TEST_CASE(the_live_page_grows_while_the_run_runs) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "cpu-small"});
    const unsigned short port = free_port();
    openloop::child_process run({openloop_test::bin, "run", "--progress", "off", "--target", sim.url, "--rate", "5",
                                 "--duration", "15s", "--input-len", "32", "--output-len", "8", "--metrics-listen",
                                 "127.0.0.1:" + std::to_string(port), "--out", dir.file("run")});
    // Bounded: the first published second, within 10 s of the start.
    bool published = false;
    for (int i = 0; i < 100 && !published; ++i) {
        const auto r = get(port, "/live.json");
        published = !r.error && r.status == 200 && r.body.find("\"t_s\":[0") != std::string::npos;
        if (!published) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    BOOST_TEST_REQUIRE(published, "no second published on /live.json");
    const json::object seen =
        open_in_browser(dir, "http://127.0.0.1:" + std::to_string(port) + "/", artefact("live-page.png"), 3);
    BOOST_TEST(seen.at("kind").as_string() == "live");
    const auto& states = seen.at("states").as_array();
    BOOST_TEST_REQUIRE(states.size() == 3u);
    // Each chart's points grow as the seconds come, and the status line follows the run.
    const auto& first = states.front().at("points").as_array();
    const auto& last = states.back().at("points").as_array();
    BOOST_TEST_REQUIRE(first.size() == 3u);
    for (std::size_t c = 0; c < first.size(); ++c)
        BOOST_TEST(last[c].to_number<long>() > first[c].to_number<long>(), "chart " << c << ": " << seen.at("states"));
    BOOST_TEST(states.front().at("status").as_string() != states.back().at("status").as_string());
    BOOST_TEST(std::string(states.back().at("status").as_string()).rfind("run: ", 0) == 0u, states.back());
    BOOST_TEST(label(chart(seen, "rates"), "x_label") == "time (s)");
    run.stop();
}

BOOST_AUTO_TEST_SUITE_END()
