// The files a reporter writes: requests.jsonl, timeseries.csv, and what an
// unwritable directory or a reporter never started does.
#include <boost/test/unit_test.hpp>

#include "openloop/measure/reporter.hpp"
#include "reporter_replay.hpp"

#include <boost/json/parse.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_reporter_files)

using namespace openloop;
using namespace reporter_test;

BOOST_AUTO_TEST_CASE(requests_without_an_end_are_unfinished_and_logged) {
    temp_dir dir;
    reporter_options o;
    o.out_dir = dir.path.string();
    std::vector<event> events;
    add_ok(events, 0, base, {{10, -1}});
    events.push_back(ev(event_kind::start, 1, base + 5 * ms_ns, 30, 64));
    events.push_back(ev(event_kind::sent, 1, base + 6 * ms_ns));
    events.push_back(ev(event_kind::chunk, 1, base + 50 * ms_ns, -1, 2));
    events.push_back(ev(event_kind::start, 2, base + 7 * ms_ns, 30, 64, flag_warmup));
    const run_stats s = replay(events, o);
    BOOST_TEST(s.unfinished == 1u);  // the warm-up one is logged but not counted
    BOOST_TEST(s.completed == 1u);
    BOOST_TEST(s.ttft.count() == 1u);

    const auto lines = read_lines(dir.path / "requests.jsonl");
    BOOST_TEST_REQUIRE(lines.size() == 3u);
    const auto r1 = boost::json::parse(lines[1]).as_object();
    BOOST_TEST(r1.at("index").as_int64() == 1);
    BOOST_TEST(r1.at("status").as_string() == "unfinished");
    BOOST_TEST(r1.at("end_ns").is_null());
    BOOST_TEST(r1.at("first_token_ns").as_int64() == base + 50 * ms_ns);
    BOOST_TEST(r1.at("chunks").as_int64() == 1);
    const auto r2 = boost::json::parse(lines[2]).as_object();
    BOOST_TEST(r2.at("status").as_string() == "unfinished");
    BOOST_TEST(r2.at("warmup").as_bool());
}

BOOST_AUTO_TEST_CASE(requests_jsonl_lines_carry_the_fields) {
    temp_dir dir;
    reporter_options o;
    o.out_dir = dir.path.string();
    std::vector<event> events;
    add_ok(events, 42, base, {{50, 1}, {60, 1}, {70, 1}}, 3, 700);
    events.push_back(ev(event_kind::start, 43, base + 1 * ms_ns, 20, 32));
    events.push_back(ev(event_kind::sent, 43, base + 2 * ms_ns));
    events.push_back(ev(event_kind::headers, 43, base + 4 * ms_ns, 503));
    events.push_back(ev(event_kind::failed, 43, base + 5 * ms_ns, static_cast<int>(error_class::http_5xx), 503));
    replay(events, o);

    const auto lines = read_lines(dir.path / "requests.jsonl");
    BOOST_TEST_REQUIRE(lines.size() == 2u);
    const auto ok = boost::json::parse(lines[0]).as_object();
    BOOST_TEST(ok.at("id").as_string() == "openloop-42");
    BOOST_TEST(ok.at("index").as_int64() == 42);
    BOOST_TEST(!ok.at("warmup").as_bool());
    BOOST_TEST(ok.at("status").as_string() == "ok");
    BOOST_TEST(ok.at("error").is_null());
    BOOST_TEST(ok.at("http_status").as_int64() == 200);
    BOOST_TEST(ok.at("intended_ns").as_int64() == base);
    BOOST_TEST(ok.at("sent_ns").as_int64() == base + 1 * ms_ns);
    BOOST_TEST(ok.at("headers_ns").as_int64() == base + 5 * ms_ns);
    BOOST_TEST(ok.at("first_token_ns").as_int64() == base + 50 * ms_ns);
    BOOST_TEST(ok.at("last_token_ns").as_int64() == base + 70 * ms_ns);
    BOOST_TEST(ok.at("end_ns").as_int64() == base + 71 * ms_ns);
    BOOST_TEST(ok.at("input_tokens").as_int64() == 700);
    BOOST_TEST(ok.at("max_tokens").as_int64() == 256);
    BOOST_TEST(ok.at("output_tokens").as_int64() == 3);
    BOOST_TEST(ok.at("output_tokens_source").as_string() == "usage");
    BOOST_TEST(ok.at("chunks").as_int64() == 3);
    BOOST_TEST(ok.at("cached_tokens").is_null());
    BOOST_TEST(ok.at("lag_ms").as_double() == 1.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(ok.at("ttft_ms").as_double() == 50.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(ok.at("tpot_ms").as_double() == 10.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(ok.at("e2e_ms").as_double() == 70.0, boost::test_tools::tolerance(1e-9));

    const auto bad = boost::json::parse(lines[1]).as_object();
    BOOST_TEST(bad.at("id").as_string() == "openloop-43");
    BOOST_TEST(bad.at("status").as_string() == "failed");
    BOOST_TEST(bad.at("error").as_string() == "http_5xx");
    BOOST_TEST(bad.at("http_status").as_int64() == 503);
    BOOST_TEST(bad.at("first_token_ns").is_null());
    BOOST_TEST(bad.at("ttft_ms").is_null());
    BOOST_TEST(bad.at("tpot_ms").is_null());
    BOOST_TEST(bad.at("end_ns").as_int64() == base + 5 * ms_ns);
}

BOOST_AUTO_TEST_CASE(timeseries_has_a_header_and_a_row_per_window) {
    temp_dir dir;
    reporter_options o;
    o.out_dir = dir.path.string();
    o.run_start_ns = base;
    o.window = std::chrono::milliseconds(1000);
    std::vector<event> events;
    add_ok(events, 0, base + 100 * ms_ns, {{50, -1}, {60, -1}}, 4);    // window 0
    add_ok(events, 1, base + 200 * ms_ns, {{80, -1}}, 2);              // window 0
    events.push_back(ev(event_kind::start, 2, base + 1500 * ms_ns, 1, 1));  // window 1, fails in window 2
    events.push_back(ev(event_kind::failed, 2, base + 2100 * ms_ns, static_cast<int>(error_class::io), 0));
    events.push_back(ev(event_kind::start, 3, base + 2200 * ms_ns, 1, 1));  // still in flight at the end
    replay(events, o);

    const auto lines = read_lines(dir.path / "timeseries.csv");
    BOOST_TEST_REQUIRE(lines.size() == 4u);
    const auto header = split_csv(lines[0]);
    const std::vector<std::string> expected = {"t_s",           "offered",     "refused",     "completed",
                                               "failed",        "in_flight",   "output_tokens", "ttft_p50_ms",
                                               "ttft_p99_ms",   "generator_rss_mb"};
    BOOST_TEST(header == expected, boost::test_tools::per_element());

    std::vector<std::map<std::string, std::string>> rows;
    for (std::size_t i = 1; i < lines.size(); ++i) {
        const auto cells = split_csv(lines[i]);
        BOOST_TEST_REQUIRE(cells.size() == header.size());
        std::map<std::string, std::string> row;
        for (std::size_t c = 0; c < cells.size(); ++c) {
            row[header[c]] = cells[c];
        }
        rows.push_back(row);
    }
    BOOST_TEST(std::stod(rows[0]["t_s"]) == 0.0);
    BOOST_TEST(std::stod(rows[1]["t_s"]) == 1.0);
    BOOST_TEST(std::stod(rows[2]["t_s"]) == 2.0);
    BOOST_TEST(rows[0]["offered"] == "2");
    BOOST_TEST(rows[0]["completed"] == "2");
    BOOST_TEST(rows[0]["output_tokens"] == "6");
    BOOST_TEST(std::stod(rows[0]["ttft_p50_ms"]) == 50.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(std::stod(rows[0]["ttft_p99_ms"]) == 80.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(rows[1]["offered"] == "1");
    BOOST_TEST(rows[1]["completed"] == "0");
    BOOST_TEST(rows[1]["in_flight"] == "1");
    BOOST_TEST(rows[1]["ttft_p50_ms"] == "");
    BOOST_TEST(rows[2]["failed"] == "1");
    BOOST_TEST(rows[2]["offered"] == "1");
    BOOST_TEST(rows[2]["in_flight"] == "1");
    BOOST_TEST(std::stod(rows[2]["generator_rss_mb"]) > 0.0);
}

BOOST_AUTO_TEST_CASE(finish_without_start_drains_on_the_callers_thread) {
    spsc_ring<event> ring(64);
    reporter_options o;
    o.follow_clock = false;
    reporter rep(ring, o);
    std::vector<event> events;
    add_ok(events, 0, base, {{10, -1}, {20, -1}});
    for (const event& e : events) {
        BOOST_TEST_REQUIRE(ring.try_push(e));
    }
    rep.finish();
    BOOST_TEST(rep.stats().completed == 1u);
}

BOOST_AUTO_TEST_CASE(an_unwritable_out_dir_is_an_error_naming_it) {
    temp_dir dir;
    std::filesystem::create_directories(dir.path);
    const auto blocker = dir.path / "file";
    std::ofstream(blocker) << "x";
    spsc_ring<event> ring(16);
    reporter_options o;
    o.out_dir = (blocker / "sub").string();
    reporter rep(ring, o);
    try {
        rep.start();
        BOOST_FAIL("start() should have thrown");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find(o.out_dir) != std::string::npos);
    }
}

BOOST_AUTO_TEST_SUITE_END()
