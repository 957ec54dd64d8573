#include <boost/test/unit_test.hpp>

#include "openloop/measure/window_log.hpp"

#include <boost/json/parse.hpp>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_window_log)

using namespace openloop;
namespace fs = std::filesystem;
namespace json = boost::json;
using namespace std::chrono_literals;

namespace {

constexpr std::int64_t ms = 1'000'000;
constexpr std::int64_t origin = 5'000'000'000'000;  // any non-zero clock reading

struct temp_dir {
    fs::path path = fs::temp_directory_path() / ("window_log_test-" + std::to_string(::getpid()));
    temp_dir() {
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~temp_dir() { fs::remove_all(path); }
};

std::vector<std::string> lines_of(const fs::path& p) {
    std::ifstream in(p);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

std::vector<std::string> cells(const std::string& line) {
    std::vector<std::string> out;
    std::stringstream s(line);
    for (std::string c; std::getline(s, c, ',');) out.push_back(c);
    if (!line.empty() && line.back() == ',') out.emplace_back();
    return out;
}

// A CSV row by column name.
std::map<std::string, std::string> row(const std::string& header, const std::string& line) {
    const auto names = cells(header), values = cells(line);
    BOOST_TEST_REQUIRE(names.size() == values.size());
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < names.size(); ++i) out[names[i]] = values[i];
    return out;
}

// A request that streamed its one token ttft after it was due.
void complete(window_log& log, std::int64_t at, std::int64_t ttft) {
    request_timeline r;
    r.intended = at;
    r.sent = at;
    r.first_chunk = r.last_chunk = at + ttft;
    r.chunks = 1;
    request_metrics m;
    m.ttft = m.e2e = ttft;
    m.output_tokens = 1;
    log.completed(r, m);
}

bool near(double got, double want) { return std::abs(got - want) <= want * 0.001; }

}  // namespace

BOOST_AUTO_TEST_CASE(three_windows_on_disk_as_each_closes) {
    temp_dir dir;
    window_log log(1s);
    log.open(dir.path.string());
    int samples = 0;
    log.set_signal_source([&] {
        window_signals s;
        s.scraping = true;
        s.server_pid = true;
        s.server_rss_mib = 100 + samples;
        s.server_cpu_pct = 50;
        s.scrape_failures = samples;
        // The first sample fixes the CSV's signal columns; later ones lose one and bring another.
        if (samples++ == 0) {
            s.values = {{"kv_usage", 0.5}, {"queue", 3}};
        } else {
            s.values = {{"queue", 4}, {"late", 7}};
        }
        return s;
    });
    log.start(origin);

    // Window 0: 100 requests, TTFT 1..100 ms; three failures.
    for (int i = 1; i <= 100; ++i) {
        log.offered();
        log.lag(100'000);
        complete(log, origin + i * ms, i * ms);
    }
    log.failed(error_class::http_5xx);
    log.failed(error_class::http_5xx);
    log.failed(error_class::timeout_idle);
    log.advance(origin + 999 * ms, 4);
    BOOST_TEST(log.last().index == -1);  // not over yet
    log.advance(origin + 1000 * ms, 4);
    BOOST_TEST(log.last().index == 0);
    BOOST_TEST(near(static_cast<double>(log.last().ttft_p99), 99.0 * ms));

    // On disk before close(): one row in each file.
    auto jsonl = lines_of(dir.path / "windows.jsonl");
    auto csv = lines_of(dir.path / "windows.csv");
    BOOST_TEST_REQUIRE(jsonl.size() == 1u);
    BOOST_TEST_REQUIRE(csv.size() == 2u);
    const std::string header = csv[0];
    BOOST_TEST(header.starts_with("window,t_start_s,t_end_s,offered,"));
    BOOST_TEST(header.ends_with(",server_rss_mib,server_cpu_pct,scrape_failures,signals.kv_usage,signals.queue"));

    // Window 1 has nothing; window 2 one request, cut at 2.5 s by the end of the run.
    log.offered();
    log.advance(origin + 2100 * ms, 1);
    BOOST_TEST(lines_of(dir.path / "windows.jsonl").size() == 2u);
    complete(log, origin + 2200 * ms, 40 * ms);
    log.close_window(origin + 2500 * ms, 0);
    log.check();
    jsonl = lines_of(dir.path / "windows.jsonl");
    csv = lines_of(dir.path / "windows.csv");
    log.close();
    BOOST_TEST_REQUIRE(jsonl.size() == 3u);
    BOOST_TEST_REQUIRE(csv.size() == 4u);
    BOOST_TEST(csv[0] == header);

    const json::object w0 = json::parse(jsonl[0]).as_object();
    BOOST_TEST(w0.at("window").to_number<int>() == 0);
    BOOST_TEST(w0.at("t_start_s").to_number<double>() == 0.0);
    BOOST_TEST(w0.at("t_end_s").to_number<double>() == 1.0);
    BOOST_TEST(w0.at("offered").to_number<int>() == 100);
    BOOST_TEST(w0.at("completed").to_number<int>() == 100);
    BOOST_TEST(w0.at("failed").to_number<int>() == 3);
    BOOST_TEST(std::abs(w0.at("error_rate").to_number<double>() - 3.0 / 103) < 1e-12);
    BOOST_TEST(w0.at("in_flight").to_number<int>() == 4);
    BOOST_TEST(w0.at("output_tokens").to_number<int>() == 100);
    const json::object& errors = w0.at("errors").as_object();
    BOOST_TEST(errors.size() == 2u);
    BOOST_TEST(errors.at("http_5xx").to_number<int>() == 2);
    BOOST_TEST(errors.at("timeout_idle").to_number<int>() == 1);
    const json::object& ttft = w0.at("ttft_ms").as_object();
    BOOST_TEST(near(ttft.at("p50").to_number<double>(), 50));
    BOOST_TEST(near(ttft.at("p90").to_number<double>(), 90));
    BOOST_TEST(near(ttft.at("p99").to_number<double>(), 99));
    BOOST_TEST(near(ttft.at("max").to_number<double>(), 100));
    BOOST_TEST(w0.at("tpot_ms").is_null());  // one token each: no TPOT
    BOOST_TEST(w0.at("itl_ms").is_null());
    BOOST_TEST(near(w0.at("lag_ms").at("p99").to_number<double>(), 0.1));
    BOOST_TEST(w0.at("server").at("rss_mib").to_number<double>() == 100.0);
    BOOST_TEST(w0.at("signals").at("kv_usage").to_number<double>() == 0.5);
    BOOST_TEST(w0.at("scrape_failures").to_number<int>() == 0);

    const auto c0 = row(header, csv[1]);
    BOOST_TEST(c0.at("window") == "0");
    BOOST_TEST(c0.at("failed") == "3");
    BOOST_TEST(near(std::stod(c0.at("ttft_p99_ms")), 99));
    BOOST_TEST(near(std::stod(c0.at("ttft_max_ms")), 100));
    BOOST_TEST(c0.at("tpot_p99_ms").empty());
    BOOST_TEST(c0.at("server_rss_mib") == "100.0");
    BOOST_TEST(c0.at("signals.kv_usage") == "0.5");
    BOOST_TEST(c0.at("signals.queue") == "3");

    // The empty window: counts of zero, null percentiles, empty cells.
    const json::object w1 = json::parse(jsonl[1]).as_object();
    BOOST_TEST(w1.at("window").to_number<int>() == 1);
    BOOST_TEST(w1.at("offered").to_number<int>() == 1);
    BOOST_TEST(w1.at("completed").to_number<int>() == 0);
    BOOST_TEST(w1.at("errors").as_object().empty());
    for (const char* k : {"ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "lag_ms"}) BOOST_TEST(w1.at(k).is_null(), k);
    const auto c1 = row(header, csv[2]);
    for (const char* k : {"ttft_p50_ms", "ttft_p99_ms", "ttft_max_ms", "e2e_p99_ms", "lag_p99_ms", "lag_max_ms"})
        BOOST_TEST(c1.at(k).empty(), k);
    BOOST_TEST(c1.at("achieved_rate") == "0.000");
    // A signal the later samples lack is an empty cell; one they add has no column.
    BOOST_TEST(c1.at("signals.kv_usage").empty());
    BOOST_TEST(c1.at("signals.queue") == "4");
    BOOST_TEST(w1.at("signals").at("late").to_number<double>() == 7.0);
    BOOST_TEST(w1.at("scrape_failures").to_number<int>() == 1);

    // The partial last window: 0.5 s long, its rates over its own length.
    const json::object w2 = json::parse(jsonl[2]).as_object();
    BOOST_TEST(w2.at("t_start_s").to_number<double>() == 2.0);
    BOOST_TEST(w2.at("t_end_s").to_number<double>() == 2.5);
    BOOST_TEST(w2.at("achieved_rate").to_number<double>() == 2.0);
    BOOST_TEST(near(w2.at("ttft_ms").at("p99").to_number<double>(), 40));
    const auto c2 = row(header, csv[3]);
    BOOST_TEST(c2.at("t_end_s") == "2.500");
    BOOST_TEST(near(std::stod(c2.at("e2e_p50_ms")), 40));
}

BOOST_AUTO_TEST_CASE(without_watches_no_server_columns) {
    temp_dir dir;
    window_log log(2s);
    log.open(dir.path.string());
    log.start(origin);
    complete(log, origin, 5 * ms);
    log.close_window(origin + 500 * ms, 0);
    log.close();
    const auto csv = lines_of(dir.path / "windows.csv");
    BOOST_TEST_REQUIRE(csv.size() == 2u);
    BOOST_TEST(csv[0].ends_with(",generator_rss_mib,generator_cpu_pct,ttfa_p50_ms,ttfa_p99_ms,reasoning_tokens"));
    // A window without thinking leaves the thinking model's columns empty and its JSON without them.
    BOOST_TEST(csv[1].ends_with(",,,"));
    const json::object w = json::parse(lines_of(dir.path / "windows.jsonl").at(0)).as_object();
    BOOST_TEST(!w.contains("server"));
    BOOST_TEST(!w.contains("signals"));
    BOOST_TEST(!w.contains("ttfa_ms"));
    BOOST_TEST(!w.contains("scrape_failures"));
    BOOST_TEST(w.at("generator").as_object().contains("rss_mib"));
}

// A thinking model's window: a request that never answered (max_tokens spent thinking) is
// infinitely late in the window's TTFA, as in the run's, and the window says how many.
BOOST_AUTO_TEST_CASE(a_window_counts_a_request_that_never_answered_as_infinitely_late) {
    temp_dir dir;
    window_log log(1s);
    log.open(dir.path.string());
    log.start(origin);
    for (int i = 0; i < 100; ++i) {
        request_timeline r;
        r.intended = r.sent = origin + i * ms;
        r.max_tokens = 8;
        r.add_chunk(r.intended + 50 * ms, 4, true);
        r.add_chunk(r.intended + 100 * ms, 4, i >= 97);
        log.offered();
        log.completed(r, measure_request(r, {8, 100, -1, false, -1}));
    }
    log.close_window(origin + 500 * ms, 0);
    log.check();
    const json::object w = json::parse(lines_of(dir.path / "windows.jsonl").at(0)).as_object();
    const json::object& ttfa = w.at("ttfa_ms").as_object();
    BOOST_TEST(near(ttfa.at("p50").to_number<double>(), 100.0));
    BOOST_TEST(ttfa.at("p99") == "inf");
    BOOST_TEST(ttfa.at("max") == "inf");
    BOOST_TEST(ttfa.at("never_answered").to_number<int>() == 3);
    const auto csv = lines_of(dir.path / "windows.csv");
    BOOST_TEST_REQUIRE(csv.size() == 2u);
    const auto cells = row(csv[0], csv[1]);
    BOOST_TEST(cells.at("ttfa_p99_ms") == "inf");
    BOOST_TEST(near(std::stod(cells.at("ttfa_p50_ms")), 100.0));
    log.close();
}

BOOST_AUTO_TEST_SUITE_END()
