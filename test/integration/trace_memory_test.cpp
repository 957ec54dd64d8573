#include <boost/test/unit_test.hpp>

// A long trace costs what its selection keeps: the real binary replays 2,000
// requests of a 1,000,000-row Mooncake trace, by count and by a window near
// its end, and of a 1,000,000-row openloop log out of order, with a peak RSS
// (wait4's ru_maxrss) close to that of the same replay from a 2,000-row
// file. Before, the whole file and every row were held: 276 MiB against 88.

#include "hostile_case.hpp"
#include "run_files.hpp"
#include "sanitized.hpp"
#include "test_http.hpp"

#include "openloop/cli/child_process.hpp"

#include <cstdio>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_trace_memory)

using namespace test_http;

namespace {

// rows Mooncake rows, one a millisecond, each with a few prefix blocks as
// the real trace has; or as openloop's own log, in completion order (each
// pair of rows swapped). Written with one buffer, so that a million take a
// fraction of a second.
void write_trace(const std::string& path, std::size_t rows, bool openloop_log = false) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    BOOST_TEST_REQUIRE(f != nullptr, path);
    std::vector<char> buffer(1 << 20);
    std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
    for (std::size_t row = 0; row < rows; ++row) {
        const std::size_t i = openloop_log ? row ^ 1 : row;
        if (openloop_log)
            std::fprintf(f, "{\"index\": %zu, \"intended_ns\": %zu, \"input_tokens\": %zu, \"output_tokens\": 2, "
                            "\"status\": \"ok\"}\n", i, i * 1000000, 16 + i % 16);
        else
            std::fprintf(f, "{\"timestamp\": %zu, \"input_length\": %zu, \"output_length\": 2, \"hash_ids\": [%zu, %zu, %zu]}\n",
                         i, 16 + i % 16, i % 5, 1000 + i % 97, 100000 + i);
    }
    BOOST_TEST_REQUIRE(std::fclose(f) == 0);
}

struct replay {
    double peak_rss_mib = 0;
    std::int64_t completed = 0;
};

replay run_replay(const temp_dir& dir, const std::string& url, const std::string& name,
                  std::vector<std::string> selection) {
    std::vector<std::string> args{"run", "--target", url, "--model", "openloop-sim", "--tokenizer", "words",
                                  "--trace-speed", "4", "--lag-bound", "5s", "--out", dir.file(name)};
    // The lag bound is loose: memory is measured here, not the sender's timing beside other tests.
    args.insert(args.end(), selection.begin(), selection.end());
    const auto o = hostile::run_openloop_bounded(args, dir.file(name + ".log"), hostile::wall_bound(60));
    BOOST_TEST_REQUIRE(o.exit_status == 0, o.log);
    replay r;
    r.peak_rss_mib = o.peak_rss_mib;
    r.completed = read_json(dir.file(name + "/summary.json")).at("completed").to_number<std::int64_t>();
    BOOST_TEST_MESSAGE(name << ": peak RSS " << r.peak_rss_mib << " MiB");
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_selection_of_a_long_trace_costs_what_it_selects) {
    temp_dir dir;
    write_trace(dir.file("long.jsonl"), 1'000'000);
    write_trace(dir.file("short.jsonl"), 2'000);
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "firehose"});
    const auto small = run_replay(dir, sim.url, "short", {"--trace", dir.file("short.jsonl")});
    const auto counted = run_replay(dir, sim.url, "counted", {"--trace", dir.file("long.jsonl"), "--trace-max-requests", "2000"});
    // The window's rows are 2,000 near the end: every row before it is read, none held.
    const auto windowed = run_replay(dir, sim.url, "windowed",
                                     {"--trace", dir.file("long.jsonl"), "--trace-from", "990s", "--trace-to", "992s"});
    // Out of order, the file is read twice; still only the selection is held.
    write_trace(dir.file("log.jsonl"), 1'000'000, true);
    const auto unordered = run_replay(dir, sim.url, "unordered", {"--trace", dir.file("log.jsonl"), "--trace-max-requests", "2000"});
    sim.process.stop();
    BOOST_TEST(small.completed == 2000);
    BOOST_TEST(counted.completed == 2000);
    BOOST_TEST(windowed.completed == 2000);
    BOOST_TEST(unordered.completed == 2000);
    // Generous: the file alone is 90 MiB and its rows took 150 MiB more; up to
    // 8 MiB of the file's pages are resident before they are handed back.
    const double margin = hostile::rss_bound(20);
    BOOST_TEST(counted.peak_rss_mib < small.peak_rss_mib + margin);
    BOOST_TEST(windowed.peak_rss_mib < small.peak_rss_mib + margin);
    BOOST_TEST(unordered.peak_rss_mib < small.peak_rss_mib + margin);
}

BOOST_AUTO_TEST_SUITE_END()
