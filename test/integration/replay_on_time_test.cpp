#define BOOST_TEST_MODULE replay_on_time
// The first minute of Mooncake's conversation trace replayed at 1x against the
// simulator: 162 requests in 20 groups that share one millisecond (up to 16,
// with prompts of 10k+ tokens). Bodies are built ahead of their send time, so
// each group leaves back to back: one send after another (~0.1 ms each on
// loopback, the kernel's copy of a 70 KB request most of it), never one build
// after another (~0.5 ms at the median for these prompts, 1.5 ms at p90; the
// gap between sends before bodies were built ahead).
//
// What is asserted is that gap, at its median: a shared two-core machine
// preempts the generator now and then for a scheduler tick (4 ms) while the
// simulator parses the group beside it, so the widest group and the lag p99
// (the 1 ms bound, VALID) are printed here and held by tools/bench/trace-groups
// on a quiet machine. The simulator's log is the witness that every request
// arrived once and not before it was sent; its arrival spread is its own: it
// stamps a request after reading it on its one thread, behind the parsing of
// those read before it.
#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"

#include <algorithm>
#include <fstream>
#include <map>
#include <vector>

namespace json = boost::json;
using namespace test_http;

namespace {

constexpr std::int64_t window_ms = 60'000;

struct group {
    std::vector<std::int64_t> sent, arrived;  // the generator's send stamps, the simulator's arrivals
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
        std::ifstream in(OPENLOOP_SOURCE_DIR "/test/data/traces/mooncake-conversation/conversation_trace.first600s.jsonl");
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
    // to search), so what is measured is the generator.
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(OPENLOOP_BIN, {"--log", sim_log, "--step-base-ms", "2", "--prefill-token-ms", "0.0005",
                                                  "--decode-seq-ms", "0.01", "--kv-token-ms", "0", "--max-batched-tokens",
                                                  "100000000", "--max-model-len", "10000000", "--kv-capacity-tokens",
                                                  "10000000000", "--max-num-seqs", "100000", "--tokens-per-chunk", "4",
                                                  "--prefix-cache", "false"});
    const std::string cmd = std::string(OPENLOOP_BIN) + " run --progress off --target " + sim.url + " --trace " + trace +
                            " --ignore-eos --out " + dir.file("out") + " > " + dir.file("run.log") + " 2>&1";
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
    std::map<std::string, std::int64_t> arrival;
    for (const auto& o : read_jsonl(sim_log)) {
        const std::string id(o.at("request_id").as_string());
        ++seen[id];
        arrival[id] = o.at("arrival_ns").as_int64();
    }
    // At 1x, requests sharing a trace timestamp share one intended send time.
    std::map<std::int64_t, group> groups;
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        const std::string id(r.at("id").as_string());
        BOOST_TEST_REQUIRE(seen[id] == 1, id << " reached the simulator " << seen[id] << " times");
        auto& g = groups[r.at("intended_ns").to_number<std::int64_t>()];
        g.sent.push_back(r.at("sent_ns").to_number<std::int64_t>());
        g.arrived.push_back(arrival[id]);
        BOOST_TEST(arrival[id] >= g.sent.back(), id << " arrived before it was sent");
    }
    std::vector<int> sizes, expected;
    for (const auto& [at, n] : trace_groups) expected.push_back(n);
    std::vector<std::int64_t> gaps;
    double worst_sent = 0, worst_arrived = 0;
    for (auto& [at, g] : groups) {
        sizes.push_back(static_cast<int>(g.sent.size()));
        std::sort(g.sent.begin(), g.sent.end());
        for (std::size_t i = 1; i < g.sent.size(); ++i) gaps.push_back(g.sent[i] - g.sent[i - 1]);
        worst_sent = std::max(worst_sent, spread_ms(g.sent));
        worst_arrived = std::max(worst_arrived, spread_ms(g.arrived));
    }
    BOOST_TEST(sizes == expected, boost::test_tools::per_element());
    BOOST_TEST_REQUIRE(gaps.size() == 142u);
    std::nth_element(gaps.begin(), gaps.begin() + gaps.size() / 2, gaps.end());
    const double median_gap_ms = static_cast<double>(gaps[gaps.size() / 2]) / 1e6;
    BOOST_TEST_MESSAGE("same-timestamp groups: median gap between sends " << median_gap_ms << " ms, widest group " << worst_sent
                       << " ms (the simulator's arrivals " << worst_arrived << " ms); lag p99 "
                       << summary.at("p99_lag_ms").to_number<double>() << " ms, "
                       << (validity.at("valid").as_bool() ? "VALID" : "INVALID"));
    // A quarter of a millisecond: half the median build; a sanitized
    // generator runs every send several times slower.
    BOOST_TEST(median_gap_ms <= (openloop_test::sanitized ? 0.75 : 0.25));
}
