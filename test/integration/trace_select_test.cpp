#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>

BOOST_AUTO_TEST_SUITE(it_trace_select)

namespace json = boost::json;
using namespace test_http;

namespace {

struct row {
    std::int64_t at_ns;
    std::int64_t input, output;
};

// The first rows of the Mooncake slice, as a ';' CSV with its own column
// names and 17-digit float seconds, as a user's export would be.
std::vector<row> write_csv(const std::string& path, std::size_t n) {
    std::ifstream in(std::string(openloop_test::source_dir) + "/test/data/traces/mooncake-conversation/conversation_trace.first600s.jsonl");
    std::ofstream out(path, std::ios::binary);
    out << "\"arrival (s)\";prompt;completion;blocks\r\n";
    std::vector<row> rows;
    for (std::string line; rows.size() < n && std::getline(in, line);) {
        const json::object o = json::parse(line).as_object();
        row r{o.at("timestamp").to_number<std::int64_t>() * 1'000'000, o.at("input_length").to_number<std::int64_t>(),
              o.at("output_length").to_number<std::int64_t>()};
        std::string ids;
        for (const auto& h : o.at("hash_ids").as_array()) ids += (ids.empty() ? "" : "|") + std::to_string(h.as_int64());
        char t[40];
        std::snprintf(t, sizeof t, "%.17g", double(r.at_ns) / 1e9 + 17.25);
        out << t << ";" << r.input << ";\"" << r.output << "\";\"" << ids << "\"\r\n";
        rows.push_back(r);
    }
    return rows;
}

std::vector<json::object> by_index(std::vector<json::object> requests) {
    std::sort(requests.begin(), requests.end(), [](const json::object& a, const json::object& b) {
        return a.at("index").to_number<std::int64_t>() < b.at("index").to_number<std::int64_t>();
    });
    return requests;
}

const std::string columns = "time=arrival (s),input=prompt,output=completion,prefix=blocks";

}  // namespace

// A window of a column-mapped log: the right requests, at the trace's times.
BOOST_AUTO_TEST_CASE(a_mapped_trace_window_replays_its_requests_on_their_times) {
    temp_dir dir;
    const auto rows = write_csv(dir.file("log.csv"), 400);
    // Small prompts keep the run short: lengths are checked, not the server.
    const int rc = run_openloop({"--target", "sim:firehose", "--trace", dir.file("log.csv"), "--trace-columns", columns,
                                 "--trace-from", "1m", "--trace-max-requests", "20", "--trace-speed", "8", "--tokenizer",
                                 "words", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    std::vector<row> expected;
    for (const row& r : rows)
        if (r.at_ns >= 60'000'000'000 && expected.size() < 20) expected.push_back(r);
    BOOST_REQUIRE_EQUAL(expected.size(), 20u);
    const auto requests = by_index(read_jsonl(dir.file("out/requests.jsonl")));
    BOOST_TEST_REQUIRE(requests.size() == 20u);
    const std::int64_t origin = requests[0].at("intended_ns").to_number<std::int64_t>() - (expected[0].at_ns - 60'000'000'000) / 8;
    for (std::size_t i = 0; i < 20; ++i) {
        BOOST_TEST(requests[i].at("input_tokens").to_number<std::int64_t>() == expected[i].input);
        BOOST_TEST(requests[i].at("max_tokens").to_number<std::int64_t>() == expected[i].output);
        // Rebased to the window's start, eight times as fast, to the ns.
        BOOST_TEST(requests[i].at("intended_ns").to_number<std::int64_t>() - origin == (expected[i].at_ns - 60'000'000'000) / 8);
    }
    BOOST_TEST(read_json(dir.file("out/summary.json")).at("completed").to_number<std::int64_t>() == 20);
}

// Once by default, lap after lap with --loop; --rate sets the mean rate.
BOOST_AUTO_TEST_CASE(loop_and_rate) {
    temp_dir dir;
    write_csv(dir.file("log.csv"), 400);
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    auto run = [&](const std::string& name, std::vector<std::string> args) {
        std::vector<std::string> all{"--target", sim.url, "--trace", dir.file("log.csv"), "--trace-columns", columns,
                                     "--trace-from", "1m", "--tokenizer", "words", "--out", dir.file(name)};
        all.insert(all.end(), args.begin(), args.end());
        const int rc = run_openloop(all, dir.file(name + ".log"));
        BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file(name + ".log")));
        return by_index(read_jsonl(dir.file(name + "/requests.jsonl")));
    };
    const auto span_s = [](const std::vector<json::object>& r) {
        return double(r.back().at("intended_ns").to_number<std::int64_t>() - r.front().at("intended_ns").to_number<std::int64_t>()) / 1e9;
    };
    // Five requests asked for, twelve to send: without --loop the trace ends the run.
    BOOST_TEST(run("once", {"--trace-max-requests", "5", "--num-requests", "12", "--rate", "100"}).size() == 5u);
    const auto looped = run("loop", {"--trace-max-requests", "5", "--num-requests", "12", "--rate", "100", "--loop"});
    BOOST_TEST_REQUIRE(looped.size() == 12u);
    for (std::size_t i = 5; i < 12; ++i)
        BOOST_TEST(looped[i].at("input_tokens") == looped[i - 5].at("input_tokens"));
    // A mean of 100 req/s: ten requests span 9 / 100 s.
    const auto rated = run("rate", {"--trace-max-requests", "10", "--rate", "100"});
    BOOST_TEST_REQUIRE(rated.size() == 10u);
    BOOST_TEST(span_s(rated) == 0.09, boost::test_tools::tolerance(1e-6));
    sim.process.stop();
}

// Rows that do not parse: refused by default naming the line; with
// --trace-skip-bad-rows counted, and their lines in the fidelity report.
BOOST_AUTO_TEST_CASE(skipped_rows_are_refused_or_reported_with_their_lines) {
    temp_dir dir;
    write_csv(dir.file("log.csv"), 12);
    {
        std::ofstream out(dir.file("log.csv"), std::ios::app | std::ios::binary);
        out << "soon;12;\"4\";\"1\"\r\n" << "20.5;-3;\"4\";\"1\"\r\n";
    }
    const std::vector<std::string> base = {"--target", "sim:firehose", "--trace", dir.file("log.csv"), "--trace-columns",
                                           columns, "--trace-speed", "50", "--tokenizer", "words", "--out", dir.file("out")};
    BOOST_TEST(run_openloop(base, dir.file("refused.log")) == 2);
    BOOST_TEST(slurp(dir.file("refused.log")).find("log.csv:14") != std::string::npos, slurp(dir.file("refused.log")));

    auto skipping = base;
    skipping.push_back("--trace-skip-bad-rows");
    const int rc = run_openloop(skipping, dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    BOOST_TEST(slurp(dir.file("run.log")).find("skipped 2 bad rows (lines 14, 15)") != std::string::npos,
               slurp(dir.file("run.log")));
    const json::object f = read_json(dir.file("out/summary.json")).at("fidelity").as_object();
    BOOST_TEST(f.at("rows_skipped").to_number<std::int64_t>() == 2);
    const json::array& lines = f.at("rows_skipped_lines").as_array();
    BOOST_TEST_REQUIRE(lines.size() == 2u);
    BOOST_TEST(lines[0].to_number<std::int64_t>() == 14);
    BOOST_TEST(lines[1].to_number<std::int64_t>() == 15);
    BOOST_TEST(std::string(f.at("first_skipped_row").as_string()).find("log.csv:14") != std::string::npos);
    BOOST_TEST(read_json(dir.file("out/summary.json")).at("completed").to_number<std::int64_t>() == 12);
}

BOOST_AUTO_TEST_SUITE_END()
