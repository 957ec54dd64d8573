// The first minute of Mooncake's conversation trace replayed against the
// simulator: 162 requests in 20 groups that share one millisecond (up to 16,
// with prompts of 10k+ tokens). At 6x: the groups, 3 s apart in the trace,
// leave 0.5 s apart, still each alone on the wire and with slack to build
// the next; at 1x the case waited a minute for the same sends. Bodies are built ahead of their send time, the
// connections they need are opened ahead, every request due is spawned before
// any runs, and each writes its headers before any writes its body: a group
// starts on the wire together, one header write apart (~0.02 ms), not one
// 70 KB body apart (~0.05 ms) nor one build apart (~0.5 ms).
//
// The simulator's log is the witness: each request reached it once, not
// before it was sent. What is asserted is the order those mechanisms impose,
// which no slow host can change: in every group, each request was sent before
// the simulator had read the whole of any request whose body goes after the
// headers. A body built late, a connection opened on the send path or a body
// written before the group's last header breaks it. How far apart the sends
// are in time is printed here and held by tools/bench/trace-groups: on a
// shared two-core virtual machine a vCPU now and then waits milliseconds for
// its host (CI saw a median group spread of 1.4 ms once), which judges the
// host, not the generator.
#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "openloop/wire/request_writer.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <fstream>
#include <limits>
#include <map>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_replay_on_time)

namespace json = boost::json;
using namespace test_http;

namespace {

constexpr std::int64_t window_ms = 60'000;

struct group {
    std::vector<std::int64_t> sent, arrived;  // the generator's send stamps, the simulator's first bytes
    std::int64_t last_sent = 0;
    // The earliest moment the simulator had all of a request whose body was written apart.
    std::int64_t first_whole_body = std::numeric_limits<std::int64_t>::max();
    int separate_bodies = 0;
};

double spread_ms(const std::vector<std::int64_t>& v) {
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    return static_cast<double>(*hi - *lo) / 1e6;
}

}  // namespace

BOOST_AUTO_TEST_CASE(mooncake_groups_leave_together) {
    temp_dir dir;
    // The first minute of the slice, and how many requests share each timestamp.
    const auto trace = dir.file("first60s.jsonl");
    std::map<std::int64_t, int> trace_groups;
    {
        std::ifstream in(std::string(openloop_test::source_dir) + "/test/data/traces/mooncake-conversation/conversation_trace.first600s.jsonl");
        std::ofstream out(trace);
        std::string line;
        while (std::getline(in, line)) {
            const auto ts = json::parse(line).as_object().at("timestamp").to_number<std::int64_t>();
            if (ts >= window_ms) continue;
            out << line << '\n';
            ++trace_groups[ts];
        }
    }
    BOOST_TEST_REQUIRE(trace_groups.size() == 20u);

    // A simulator with a cost model far from its limits (and no prefix cache
    // to search), so what is measured is the generator; its steps short
    // enough that a group's longest answer (929 tokens) ends before the next.
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--log", sim_log, "--step-base-ms", "0.25", "--prefill-token-ms", "0.0005",
                                                  "--decode-seq-ms", "0.01", "--kv-token-ms", "0", "--max-batched-tokens",
                                                  "100000000", "--max-model-len", "10000000", "--kv-capacity-tokens",
                                                  "10000000000", "--max-num-seqs", "100000", "--tokens-per-chunk", "4",
                                                  "--prefix-cache", "false"});
    const std::string cmd = std::string(openloop_test::bin) + " run --progress off --target " + sim.url + " --trace " + trace +
                            " --trace-speed 6 --ignore-eos --out " + dir.file("out") + " > " + dir.file("run.log") + " 2>&1";
    const int rc = std::system(cmd.c_str());
    BOOST_TEST_REQUIRE(WIFEXITED(rc));
    // 0, or 3 (INVALID) when a preemption pushed the lag p99 past 1 ms: see above.
    BOOST_TEST_REQUIRE((WEXITSTATUS(rc) == 0 || WEXITSTATUS(rc) == 3), slurp(dir.file("run.log")));
    sim.process.stop();

    const auto summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("completed").to_number<int>() == 162);
    BOOST_TEST(summary.at("failed").to_number<int>() == 0);
    const auto& validity = summary.at("validity").as_object();
    if (!validity.at("valid").as_bool()) {
        const auto& reasons = validity.at("reasons").as_array();
        BOOST_TEST_REQUIRE(reasons.size() == 1u);
        BOOST_TEST(std::string(reasons[0].as_string()).starts_with("schedule lag"), reasons[0]);
    }

    std::map<std::string, int> seen;
    std::map<std::string, std::int64_t> arrival, whole;
    std::map<std::string, std::size_t> body_bytes;
    for (const auto& o : read_jsonl(sim_log)) {
        const std::string id(o.at("request_id").as_string());
        ++seen[id];
        arrival[id] = o.at("first_byte_ns").as_int64();
        whole[id] = o.at("arrival_ns").as_int64();
        body_bytes[id] = o.at("body_bytes").to_number<std::size_t>();
        BOOST_TEST(arrival[id] <= whole[id]);
    }
    // Requests sharing a trace timestamp share one intended send time.
    std::map<std::int64_t, group> groups;
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        const std::string id(r.at("id").as_string());
        BOOST_TEST_REQUIRE(seen[id] == 1, id << " reached the simulator " << seen[id] << " times");
        auto& g = groups[r.at("intended_ns").to_number<std::int64_t>()];
        g.sent.push_back(r.at("sent_ns").to_number<std::int64_t>());
        g.arrived.push_back(arrival[id]);
        g.last_sent = std::max(g.last_sent, g.sent.back());
        if (body_bytes[id] >= openloop::separate_body_bytes) {
            ++g.separate_bodies;
            g.first_whole_body = std::min(g.first_whole_body, whole[id]);
        }
        // The kernel's real-time stamp, moved onto the steady clock: a few µs of slack.
        BOOST_TEST(arrival[id] >= g.sent.back() - 20'000, id << " arrived before it was sent");
    }
    std::vector<int> sizes, expected;
    for (const auto& [at, n] : trace_groups) expected.push_back(n);
    std::vector<std::int64_t> gaps;
    std::vector<double> sent_spreads, arrived_spreads;
    for (auto& [at, g] : groups) {
        sizes.push_back(static_cast<int>(g.sent.size()));
        std::sort(g.sent.begin(), g.sent.end());
        for (std::size_t i = 1; i < g.sent.size(); ++i) gaps.push_back(g.sent[i] - g.sent[i - 1]);
        sent_spreads.push_back(spread_ms(g.sent));
        arrived_spreads.push_back(spread_ms(g.arrived));
    }
    std::sort(sent_spreads.begin(), sent_spreads.end());
    std::sort(arrived_spreads.begin(), arrived_spreads.end());
    const double worst_sent = sent_spreads.back(), worst_arrived = arrived_spreads.back();
    BOOST_TEST(sizes == expected, boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(gaps.size() == 142u);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    const double median_gap_ms = static_cast<double>(gaps[gaps.size() / 2]) / 1e6;
    BOOST_TEST_MESSAGE("same-timestamp groups: median gap between sends " << median_gap_ms << " ms, widest group " << worst_sent
                       << " ms (the simulator's arrivals " << worst_arrived << " ms); lag p99 "
                       << summary.at("p99_lag_ms").to_number<double>() << " ms, "
                       << (validity.at("valid").as_bool() ? "VALID" : "INVALID"));
    // Headers before bodies, group by group; the groups where it could fail
    // (two or more bodies written apart) are most of them.
    int judged = 0;
    for (const auto& [at, g] : groups) {
        if (g.separate_bodies == 0 || g.sent.size() < 2) continue;
        ++judged;
        BOOST_TEST(g.last_sent < g.first_whole_body, "the group due at " << at << " ns: its last send came "
                                                     << static_cast<double>(g.last_sent - g.first_whole_body) / 1e6
                                                     << " ms after the simulator had a whole body of it");
    }
    BOOST_TEST(judged >= 15);
}

BOOST_AUTO_TEST_SUITE_END()
