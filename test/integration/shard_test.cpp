#include <boost/test/unit_test.hpp>

// One run spread over processes (--shard I/N, --start-at): four shards
// against one simulator send exactly the schedule one process sends for the
// same seed, request for request (time, id, lengths), and `openloop merge`
// of them is that run: counts, rate and histograms from the union of their
// logs; a trace's rows are each sent once across shards; a shard that
// starts late is INVALID, and so is the merge that holds it; a sharded sweep
// whose other shard never comes stops at its barrier with what it has.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <tuple>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_shard)

namespace json = boost::json;
using namespace test_http;
using namespace std::chrono_literals;

namespace {

// A request as its schedule made it: offset from its run's start, lengths, warm-up.
using planned = std::tuple<std::int64_t, std::int64_t, std::int64_t, bool>;

// A result's requests by id, their times from the run's own start.
std::map<std::string, planned> schedule_of(const std::string& dir) {
    const std::int64_t origin = read_json(dir + "/summary.json").at("start").at("origin_steady_ns").as_int64();
    std::map<std::string, planned> out;
    for (const auto& r : read_jsonl(dir + "/requests.jsonl"))
        out[std::string(r.at("id").as_string())] = {r.at("intended_ns").as_int64() - origin,
                                                    r.at("input_tokens").as_int64(), r.at("max_tokens").as_int64(),
                                                    r.at("warmup").as_bool()};
    return out;
}

// A --start-at instant a few seconds ahead, as @SECONDS.
std::string soon(int seconds) {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return "@" + std::to_string(std::chrono::duration_cast<std::chrono::seconds>(now).count() + seconds);
}

// `openloop run` once per shard, all at once; each one's exit status.
std::vector<int> run_shards(const temp_dir& dir, const std::string& name, int count, const std::vector<std::string>& args) {
    std::string script;
    for (int i = 0; i < count; ++i) {
        const std::string part = dir.file(name + std::to_string(i));
        std::string cmd = std::string(openloop_test::bin) + " run --progress off --lag-bound 250ms --shard " +
                          std::to_string(i) + "/" + std::to_string(count) + " --out " + part;
        for (const auto& a : args) cmd += " '" + a + "'";
        script += "(" + cmd + " > " + part + ".log 2>&1; echo $? > " + part + ".rc) & ";
    }
    script += "wait";
    BOOST_TEST_REQUIRE(std::system(("sh -c \"" + script + "\"").c_str()) == 0);
    std::vector<int> rcs;
    for (int i = 0; i < count; ++i) rcs.push_back(std::stoi(slurp(dir.file(name + std::to_string(i) + ".rc"))));
    return rcs;
}

}  // namespace

BOOST_AUTO_TEST_CASE(four_shards_send_one_runs_schedule_and_merge_into_it) {
    temp_dir dir;
    const auto port = std::to_string(free_port());
    openloop::child_process sim({openloop_test::bin, "sim", "--preset", "cpu-small", "--port", port});
    BOOST_TEST_REQUIRE(sim.read_line(10s).find("listening on") != std::string::npos);
    const double rate = 8, duration = 5;
    const std::vector<std::string> load{"--target", "http://127.0.0.1:" + port, "--rate", "8", "--duration", "5s",
                                        "--warmup", "1s", "--seed", "29", "--input-len", "uniform:16:64",
                                        "--output-len", "uniform:2:8", "--ignore-eos"};
    std::vector<std::string> sharded = load;
    sharded.insert(sharded.end(), {"--start-at", soon(4)});
    const std::vector<int> rcs = run_shards(dir, "shard", 4, sharded);
    for (int i = 0; i < 4; ++i)
        BOOST_TEST_REQUIRE(rcs[i] == 0, slurp(dir.file("shard" + std::to_string(i) + ".log")));
    std::vector<std::string> single = load;
    single.insert(single.end(), {"--out", dir.file("one")});
    BOOST_TEST_REQUIRE(run_openloop(single, dir.file("one.log")) == 0, slurp(dir.file("one.log")));

    // The union of the shards' schedules is the one process's, request for request.
    const auto whole = schedule_of(dir.file("one"));
    std::map<std::string, planned> together;
    std::vector<std::string> parts;
    for (int i = 0; i < 4; ++i) {
        parts.push_back(dir.file("shard" + std::to_string(i)));
        const json::object s = read_json(parts.back() + "/summary.json");
        BOOST_TEST(s.at("shard").as_string() == std::to_string(i) + "/4");
        BOOST_TEST(s.at("request_rate").to_number<double>() == rate / 4);
        BOOST_TEST(s.at("start").at("late_ms").to_number<double>() == 0.0);
        BOOST_TEST(s.at("start").at("origin_wall_ns").as_int64() == s.at("start").at("start_at_ns").as_int64());
        for (const auto& [id, p] : schedule_of(parts.back())) {
            BOOST_TEST(std::stoull(id.substr(id.find('-') + 1)) % 4 == std::uint64_t(i), id);
            BOOST_TEST(together.emplace(id, p).second, id << " sent by two shards");
        }
    }
    BOOST_TEST(whole.size() > 30u);
    BOOST_TEST(together == whole);

    // Merged: the count is the schedule's, within its Poisson interval of rate x duration.
    std::vector<std::string> merge{"merge"};
    merge.insert(merge.end(), parts.begin(), parts.end());
    merge.insert(merge.end(), {"--out", dir.file("merged")});
    BOOST_TEST_REQUIRE(openloop_cli(merge, dir.file("merge.log")) == 0, slurp(dir.file("merge.log")));
    const json::object merged = read_json(dir.file("merged/summary.json"));
    const json::object one = read_json(dir.file("one/summary.json"));
    BOOST_TEST(merged.at("completed").as_int64() == one.at("completed").as_int64());
    BOOST_TEST(merged.at("failed").as_int64() == 0);
    const double expected = rate * duration;
    const auto measured = static_cast<double>(merged.at("completed").as_int64());
    BOOST_TEST(std::abs(measured - expected) <= 2.576 * std::sqrt(expected), measured << " vs " << expected);
    BOOST_TEST(merged.at("request_rate").to_number<double>() == rate);
    BOOST_TEST(merged.at("merged").at("clock").as_string() == "wall");
    BOOST_TEST(merged.at("merged").at("start_spread_ms").to_number<double>() == 0.0);
    BOOST_TEST(merged.at("shard").is_null());

    // The merged histograms are those of the union of the shards' request logs.
    std::vector<std::int64_t> ttft, e2e, lag;
    for (const auto& r : read_jsonl(dir.file("merged/requests.jsonl"))) {
        if (r.at("warmup").as_bool()) continue;
        const std::int64_t intended = r.at("intended_ns").as_int64();
        ttft.push_back(r.at("first_token_ns").as_int64() - intended);
        e2e.push_back(r.at("last_token_ns").as_int64() - intended);
        lag.push_back(r.at("sent_ns").as_int64() - intended);
    }
    BOOST_TEST(ttft.size() == static_cast<std::size_t>(measured));
    for (const auto& [key, values, p] :
         {std::tuple{"p50_ttft_ms", &ttft, 50.0}, std::tuple{"p99_ttft_ms", &ttft, 99.0},
          std::tuple{"p90_e2el_ms", &e2e, 90.0}, std::tuple{"p99_e2el_ms", &e2e, 99.0}}) {
        const double want = nearest_rank(*values, p) / 1e6;
        // The histogram keeps 3 significant digits: within 0.1 %.
        BOOST_TEST(std::abs(merged.at(key).to_number<double>() - want) <= want * 1e-3, key << " " << want);
    }
    // On the wall clock, every shard's request sits at the shared start plus its offset.
    const std::int64_t start_at = read_json(parts[0] + "/summary.json").at("start").at("start_at_ns").as_int64();
    for (const auto& r : read_jsonl(dir.file("merged/requests.jsonl"))) {
        const std::string id(r.at("id").as_string());
        BOOST_TEST(r.at("intended_ns").as_int64() - start_at == std::get<0>(whole.at(id)), id);
    }
}

BOOST_AUTO_TEST_CASE(every_trace_row_is_sent_once_across_shards) {
    temp_dir dir;
    // 45 rows over 1.5 s, some sharing a timestamp, each with its own lengths.
    {
        std::ofstream trace(dir.file("trace.jsonl"));
        for (int i = 0; i < 45; ++i)
            trace << "{\"timestamp\": " << (i / 3) * 100 << ", \"input_length\": " << 20 + i
                  << ", \"output_length\": " << 2 + i % 5 << "}\n";
    }
    const auto port = std::to_string(free_port());
    openloop::child_process sim({openloop_test::bin, "sim", "--preset", "cpu-small", "--port", port});
    BOOST_TEST_REQUIRE(sim.read_line(10s).find("listening on") != std::string::npos);
    const std::vector<int> rcs =
        run_shards(dir, "part", 3,
                   {"--target", "http://127.0.0.1:" + port, "--trace", dir.file("trace.jsonl"), "--ignore-eos",
                    "--start-at", soon(3)});
    std::map<std::uint64_t, int> sent;  // row -> times sent
    for (int i = 0; i < 3; ++i) {
        const std::string part = dir.file("part" + std::to_string(i));
        BOOST_TEST_REQUIRE(rcs[i] == 0, slurp(part + ".log"));
        for (const auto& [id, p] : schedule_of(part)) {
            const std::uint64_t row = std::stoull(id.substr(id.find('-') + 1));
            BOOST_TEST(row % 3 == std::uint64_t(i), id);
            ++sent[row];
            // The row's own time and lengths.
            BOOST_TEST(std::get<0>(p) == std::int64_t(row / 3) * 100'000'000, id);
            BOOST_TEST(std::get<1>(p) == std::int64_t(20 + row), id);
            BOOST_TEST(std::get<2>(p) == std::int64_t(2 + row % 5), id);
        }
    }
    BOOST_TEST(sent.size() == 45u);
    for (const auto& [row, times] : sent) BOOST_TEST(times == 1, "row " << row);
}

BOOST_AUTO_TEST_CASE(a_shard_that_starts_late_is_invalid_and_so_is_the_merge) {
    temp_dir dir;
    const auto port = std::to_string(free_port());
    openloop::child_process sim({openloop_test::bin, "sim", "--preset", "cpu-small", "--port", port});
    BOOST_TEST_REQUIRE(sim.read_line(10s).find("listening on") != std::string::npos);
    const std::vector<std::string> base{"--target", "http://127.0.0.1:" + port, "--rate", "4", "--num-requests", "6",
                                        "--input-len", "16", "--output-len", "2", "--ignore-eos"};
    std::vector<std::string> late{"--shard", "1/2", "--start-at", soon(-5), "--out", dir.file("late")};
    late.insert(late.end(), base.begin(), base.end());
    BOOST_TEST(run_openloop(late, dir.file("late.log")) == 3, slurp(dir.file("late.log")));
    const std::string log = slurp(dir.file("late.log"));
    BOOST_TEST(log.find("after --start-at") != std::string::npos, log);
    const json::object s = read_json(dir.file("late/summary.json"));
    BOOST_TEST(s.at("start").at("late_ms").to_number<double>() > 4000.0);
    BOOST_TEST(s.at("completed").as_int64() == 3);  // its half of the six, late or not
    const auto& reasons = s.at("validity").at("reasons").as_array();
    BOOST_TEST_REQUIRE(reasons.size() >= 1u);
    BOOST_TEST(std::string(reasons.front().as_string()).find("after --start-at") != std::string::npos);

    std::vector<std::string> on_time{"--shard", "0/2", "--out", dir.file("on-time")};
    on_time.insert(on_time.end(), base.begin(), base.end());
    BOOST_TEST_REQUIRE(run_openloop(on_time, dir.file("on-time.log")) == 0, slurp(dir.file("on-time.log")));
    BOOST_TEST(openloop_cli({"merge", dir.file("on-time"), dir.file("late"), "--out", dir.file("merged")},
                            dir.file("merge.log")) == 3,
               slurp(dir.file("merge.log")));
    const json::object merged = read_json(dir.file("merged/summary.json"));
    BOOST_TEST(!merged.at("validity").at("valid").as_bool());
    const std::string why = json::serialize(merged.at("validity").at("reasons"));
    BOOST_TEST(why.find("part " + dir.file("late") + ": started") != std::string::npos, why);
    BOOST_TEST(merged.at("completed").as_int64() == 6);
}

BOOST_AUTO_TEST_CASE(a_sharded_sweep_whose_other_shard_never_comes_stops_at_the_barrier) {
    temp_dir dir;
    const auto port = std::to_string(free_port());
    openloop::child_process sim({openloop_test::bin, "sim", "--preset", "cpu-small", "--port", port});
    BOOST_TEST_REQUIRE(sim.read_line(10s).find("listening on") != std::string::npos);
    const std::string out = dir.file("sweep");
    const int rc = openloop_cli({"sweep", "--target", "http://127.0.0.1:" + port, "--rates", "2,4", "--stage-duration",
                                 "2s", "--min-samples", "3", "--warmup", "1s", "--input-len", "16", "--output-len", "2",
                                 "--progress", "off", "--shard", "0/2", "--start-at", soon(2), "--barrier-timeout",
                                 "3s", "--out", out},
                                dir.file("sweep.log"));
    const std::string log = slurp(dir.file("sweep.log"));
    BOOST_TEST(rc == 3, log);
    BOOST_TEST(log.find("shards 1/2 did not finish stage-00-2ps within 3 s") != std::string::npos, log);
    // Its own part is on disk; the report has no stage it could judge; the other shard is told to stop.
    BOOST_TEST(read_json(out + "/stage-00-2ps/shard-0-of-2/summary.json").at("completed").as_int64() > 0);
    BOOST_TEST(read_json(out + "/sweep.json").at("stages").as_array().empty());
    BOOST_TEST(slurp(out + "/stop").find("did not finish") != std::string::npos);

    // The same --out again: refused, the old marks would let the barriers pass.
    BOOST_TEST(openloop_cli({"sweep", "--target", "http://127.0.0.1:" + port, "--shard", "0/2", "--start-at", soon(2),
                             "--out", out},
                            dir.file("again.log")) == 2);
    BOOST_TEST(slurp(dir.file("again.log")).find("already holds a sharded sweep's files") != std::string::npos,
               slurp(dir.file("again.log")));
}

BOOST_AUTO_TEST_SUITE_END()
