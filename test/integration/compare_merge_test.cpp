#include <boost/test/unit_test.hpp>

// Results users carry: `openloop compare` finds no change between two runs
// of one seeded schedule and the regression against a slower server, with
// its gate failing by exit status; `openloop merge` of four shards run
// together equals one run over the union of their request logs.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <future>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_compare_merge)

namespace json = boost::json;
using namespace test_http;
using namespace std::chrono_literals;

namespace {

// A seeded run at 4 req/s for 10 s against target (well below cpu-small's knee).
int seeded_run(const std::string& target, const std::string& out, const std::string& log) {
    return run_openloop({"--target", target, "--rate", "4", "--duration", "10s", "--seed", "11",
                         "--input-len", "64", "--output-len", "16", "--ignore-eos", "--out", out},
                        log);
}

// Two short runs of different workloads against sim:cpu-small, at the same
// time: 4 req/s of 32-token prompts (a) and 2 req/s of 64-token ones (b).
void two_workloads(const temp_dir& dir) {
    const auto short_run = [&](const char* rate, const char* input, const char* name) {
        return run_openloop({"--rate", rate, "--duration", "3s", "--input-len", input, "--output-len", "8", "--out",
                             dir.file(name)},
                            dir.file(std::string(name) + ".log"));
    };
    auto a = std::async(std::launch::async, short_run, "4", "32", "a");
    auto b = std::async(std::launch::async, short_run, "2", "64", "b");
    BOOST_TEST_REQUIRE(a.get() == 0, slurp(dir.file("a.log")));
    BOOST_TEST_REQUIRE(b.get() == 0, slurp(dir.file("b.log")));
}

std::string verdict(const json::object& comparison, const char* metric) {
    return std::string(comparison.at("metrics").at(metric).at("verdict").as_string());
}

}  // namespace

BOOST_AUTO_TEST_CASE(compare_sees_no_change_between_twins_and_the_regression_of_a_slower_server) {
    temp_dir dir;
    // The same server with engine steps three times as long.
    const auto port = std::to_string(free_port());
    openloop::child_process sim({openloop_test::bin, "sim", "--preset", "cpu-small", "--step-base-ms", "60", "--port", port});
    BOOST_TEST_REQUIRE(sim.read_line(10s).find("listening on") != std::string::npos);
    // All three runs at once, so whatever else loads the machine (tests run
    // side by side) loads each alike: twins run one after the other differed
    // by 11 ms in every TTFT when only the first shared the cores.
    auto a = std::async(std::launch::async, seeded_run, "sim:cpu-small", dir.file("a"), dir.file("a.log"));
    auto b = std::async(std::launch::async, seeded_run, "sim:cpu-small", dir.file("b"), dir.file("b.log"));
    auto slower = std::async(std::launch::async, seeded_run, "http://127.0.0.1:" + port, dir.file("slow"), dir.file("slow.log"));
    BOOST_TEST_REQUIRE(a.get() == 0, slurp(dir.file("a.log")));
    BOOST_TEST_REQUIRE(b.get() == 0, slurp(dir.file("b.log")));
    BOOST_TEST_REQUIRE(slower.get() == 0, slurp(dir.file("slow.log")));

    // Twins: nothing changed, and a gate does not fail on noise.
    int rc = openloop_cli({"compare", dir.file("a"), dir.file("b"), "--json", "--fail-on", "ttft_p50>+10%", "--fail-on",
                           "e2e_mean>+5%"},
                          dir.file("twins.log"));
    std::string log = slurp(dir.file("twins.log"));
    BOOST_TEST(rc == 0, log);
    const json::object twins = json::parse(log.substr(0, log.rfind('}') + 1)).as_object();
    BOOST_TEST(twins.at("base_requests").as_int64() >= 30);
    // About 40 requests each: too few past p90 and p99 to judge them (the
    // bootstrap of a run's largest values called twins' p99 13 % apart).
    for (const auto& [name, m] : twins.at("metrics").as_object()) {
        const bool tail = name.ends_with("_p90") || name.ends_with("_p99");
        BOOST_TEST(m.at("verdict").as_string() == (tail ? "too few requests" : "within noise"),
                   std::string(name) << ": " << json::serialize(m));
    }

    // Slower: TTFT, TPOT and E2E worse; the first gate passes, the second
    // (index 1) fails, and the exit status names it.
    rc = openloop_cli({"compare", dir.file("a"), dir.file("slow"), "--json", "--out", dir.file("slow.json"), "--fail-on",
                       "error_rate>+50%", "--fail-on", "ttft_p50>+10%", "--fail-on", "e2e_p50>+10%", "--fail-on",
                       "ttft_p99>+10%"},
                      dir.file("slow-compare.log"));
    log = slurp(dir.file("slow-compare.log"));
    BOOST_TEST(rc == 11, log);
    const json::object slow = read_json(dir.file("slow.json"));
    for (const char* m : {"ttft_mean", "ttft_p50", "tpot_p50", "e2e_mean", "e2e_p50"})
        BOOST_TEST(verdict(slow, m) == "worse", m << " " << json::serialize(slow.at("metrics").at(m)));
    BOOST_TEST(verdict(slow, "error_rate") == "within noise");
    BOOST_TEST(verdict(slow, "ttft_p99") == "too few requests");
    const double low = slow.at("metrics").at("ttft_p50").at("interval_99").as_array()[0].as_double();
    BOOST_TEST(low > 0.0);
    BOOST_TEST(log.find("gate failed: ttft_p50>+10%") != std::string::npos, log);
    BOOST_TEST(log.find("gate ttft_p99>+10% not judged: ttft_p99 needs at least 500 requests in each run") !=
                   std::string::npos,
               log);
    BOOST_TEST(log.find("gate failed: e2e_p50>+10%") != std::string::npos, log);
    BOOST_TEST(log.find("gate failed: error_rate") == std::string::npos, log);

    // Markdown by default, with a row per metric.
    rc = openloop_cli({"compare", dir.file("a"), dir.file("slow")}, dir.file("md.log"));
    log = slurp(dir.file("md.log"));
    BOOST_TEST(rc == 0, log);
    BOOST_TEST(log.find("| ttft_p99 |") != std::string::npos, log);
    BOOST_TEST(log.find("| worse |") != std::string::npos, log);
    // Another server at the same workload is compare's use: said, gates judged (above).
    BOOST_TEST(log.find("The servers under test differ; the workload is the same.") < log.find("| metric |"), log);
    BOOST_TEST(log.find("- target: `sim:cpu-small` vs `http://127.0.0.1:" + port) != std::string::npos, log);

    // A bad gate is a usage error naming it.
    rc = openloop_cli({"compare", dir.file("a"), dir.file("b"), "--fail-on", "ttft_p99.9>+10%"}, dir.file("bad.log"));
    BOOST_TEST(rc == 2);
    BOOST_TEST(slurp(dir.file("bad.log")).find("no metric 'ttft_p99.9'") != std::string::npos, slurp(dir.file("bad.log")));
}

BOOST_AUTO_TEST_CASE(merge_of_four_shards_equals_one_run_over_their_request_logs) {
    temp_dir dir;
    const auto port = std::to_string(free_port());
    openloop::child_process sim({openloop_test::bin, "sim", "--preset", "cpu-small", "--port", port});
    BOOST_TEST_REQUIRE(sim.read_line(10s).find("listening on") != std::string::npos);
    // Four runs at the same time, each with its own seed: shards of one 4 req/s load.
    std::vector<std::unique_ptr<openloop::child_process>> shards;
    std::vector<std::string> parts;
    for (int i = 0; i < 4; ++i) {
        parts.push_back(dir.file("part" + std::to_string(i)));
        shards.push_back(std::make_unique<openloop::child_process>(std::vector<std::string>{
            openloop_test::bin, "run", "--target", "http://127.0.0.1:" + port, "--rate", "1", "--duration",
            "8s", "--seed", std::to_string(100 + i), "--input-len", "32", "--output-len", "8", "--progress", "off",
            "--lag-bound", "250ms", "--out", parts.back()}));
    }
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    for (auto& s : shards) {
        while (s->running() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(100ms);
        BOOST_TEST_REQUIRE(s->stop() == 0);
    }

    std::vector<std::string> args{"merge"};
    args.insert(args.end(), parts.begin(), parts.end());
    args.insert(args.end(), {"--out", dir.file("merged")});
    int rc = openloop_cli(args, dir.file("merge.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("merge.log")));
    const json::object merged = read_json(dir.file("merged/summary.json"));

    // Independently: the parts' own summaries and their concatenated logs.
    std::int64_t completed = 0, output = 0;
    double longest = 0;
    std::vector<std::int64_t> ttft, e2e;
    std::size_t lines = 0;
    for (const auto& p : parts) {
        const json::object s = read_json(p + "/summary.json");
        completed += s.at("completed").as_int64();
        output += s.at("total_output_tokens").as_int64();
        longest = std::max(longest, s.at("duration").to_number<double>());
        for (const auto& r : read_jsonl(p + "/requests.jsonl")) {
            ++lines;
            if (r.at("warmup").as_bool() || r.at("status").as_string() != "ok") continue;
            ttft.push_back(r.at("first_token_ns").as_int64() - r.at("intended_ns").as_int64());
            e2e.push_back(r.at("last_token_ns").as_int64() - r.at("intended_ns").as_int64());
        }
    }
    BOOST_TEST(merged.at("completed").as_int64() == completed);
    BOOST_TEST(merged.at("total_output_tokens").as_int64() == output);
    BOOST_TEST(completed >= 20);
    for (const auto& [key, values, p] : {std::tuple{"p50_ttft_ms", &ttft, 50.0}, std::tuple{"p99_ttft_ms", &ttft, 99.0},
                                         std::tuple{"p90_e2el_ms", &e2e, 90.0}}) {
        const double want = nearest_rank(*values, p) / 1e6;
        // The histogram keeps 3 significant digits: within 0.1 %.
        BOOST_TEST(std::abs(merged.at(key).to_number<double>() - want) <= want * 1e-3, key << " " << want);
    }
    double mean = 0;
    for (auto v : ttft) mean += static_cast<double>(v) / 1e6;
    mean /= static_cast<double>(ttft.size());
    BOOST_TEST(std::abs(merged.at("mean_ttft_ms").to_number<double>() - mean) <= mean * 1e-9 + 1e-6);

    // They ran together: the window is about one part's, and the rates add.
    const double window = merged.at("merged").at("window").as_double();
    BOOST_TEST(window >= longest * 0.999);
    BOOST_TEST(window < longest * 1.5);
    BOOST_TEST(merged.at("request_rate").to_number<double>() == 4.0, json::serialize(merged.at("request_rate")));
    BOOST_TEST(std::abs(merged.at("request_throughput").to_number<double>() - static_cast<double>(completed) / window) <
               1e-6);

    // Every line kept, tagged with the part it came from.
    const auto merged_lines = read_jsonl(dir.file("merged/requests.jsonl"));
    BOOST_TEST(merged_lines.size() == lines);
    BOOST_TEST(merged_lines.front().at("origin").as_string() == parts.front());
    BOOST_TEST(merged_lines.back().at("origin").as_string() == parts.back());

    // A part that was INVALID makes the merge INVALID, with its reason.
    json::object bad = read_json(parts[2] + "/summary.json");
    bad["validity"] = json::object{{"valid", false}, {"reasons", json::array{"schedule lag p99 9 ms exceeds the bound"}}};
    {
        std::ofstream f(parts[2] + "/summary.json");
        f << json::serialize(bad);
    }
    args.back() = dir.file("merged2");
    rc = openloop_cli(args, dir.file("merge2.log"));
    BOOST_TEST(rc == 3, slurp(dir.file("merge2.log")));
    const json::object m2 = read_json(dir.file("merged2/summary.json"));
    BOOST_TEST(m2.at("validity").at("valid").as_bool() == false);
    const std::string reasons = json::serialize(m2.at("validity").at("reasons"));
    BOOST_TEST(reasons.find("part " + parts[2] + ": schedule lag p99 9 ms") != std::string::npos, reasons);
}

BOOST_AUTO_TEST_CASE(thresholds_gate_a_run_and_its_row_joins_the_history) {
    temp_dir dir;
    const std::vector<std::string> run{"--rate", "5", "--duration", "3s", "--input-len", "32", "--output-len", "8",
                                       "--append-result", dir.file("runs.csv")};
    auto with = [&](std::vector<std::string> extra, const std::string& out) {
        extra.insert(extra.begin(), run.begin(), run.end());
        extra.insert(extra.end(), {"--out", dir.file(out)});
        return extra;
    };
    int rc = run_openloop(with({"--threshold", "ttft_p99<30s", "--threshold", "error_rate<1%", "--label", "ok"}, "a"),
                          dir.file("a.log"));
    BOOST_TEST(rc == 0, slurp(dir.file("a.log")));
    // cpu-small's TTFT is tens of milliseconds: a 1 ms bound fails, by name, with exit 6.
    rc = run_openloop(with({"--threshold", "ttft_p99<1ms", "--label", "tight"}, "b"), dir.file("b.log"));
    const std::string log = slurp(dir.file("b.log"));
    BOOST_TEST(rc == 6, log);
    BOOST_TEST(log.find("threshold failed: ttft_p99<1ms: ttft_p99 was") != std::string::npos, log);

    const std::string csv = slurp(dir.file("runs.csv"));
    std::vector<std::string> rows;
    for (std::size_t at = 0; at < csv.size();) {
        const std::size_t nl = csv.find('\n', at);
        rows.push_back(csv.substr(at, nl - at));
        at = nl + 1;
    }
    BOOST_TEST_REQUIRE(rows.size() == 3u, csv);  // the header once, then a row per run
    BOOST_TEST(rows[0].rfind("date,label,", 0) == 0u);
    BOOST_TEST(rows[1].find(",ok,sim:cpu-small,") != std::string::npos, rows[1]);
    BOOST_TEST(rows[2].find(",tight,sim:cpu-small,") != std::string::npos, rows[2]);
    const json::object b = read_json(dir.file("b/summary.json"));
    BOOST_TEST(rows[2].find("," + std::to_string(b.at("completed").as_int64()) + ",0,") != std::string::npos, rows[2]);
}

// Sweeps compare knee against knee, through the command and its gates; the
// sweep.json files hold what a sweep writes of its stages and knees.
BOOST_AUTO_TEST_CASE(sweeps_compare_knee_against_knee) {
    temp_dir dir;
    const auto write_sweep = [&](const std::string& name, double knee, const char* input_len) {
        std::filesystem::create_directories(dir.file(name));
        json::array stages;
        for (double r : {2.0, 4.0, 6.0, 8.0}) stages.push_back(json::object{{"offered_rate", r}});
        json::object saturation{{"found", true}, {"rate", knee}, {"below_range", false}};
        json::object knees{{"saturation", std::move(saturation)}};
        json::object s{{"stages", std::move(stages)}, {"knees", std::move(knees)}, {"target", "sim:cpu-small"},
                       {"config", json::object{{"input-len", input_len}, {"output-len", "16"}, {"seed", 1}}}};
        std::ofstream(dir.file(name + "/sweep.json")) << json::serialize(s);
    };
    write_sweep("base", 6, "64");
    write_sweep("new", 2, "64");
    const int rc = openloop_cli({"compare", dir.file("base"), dir.file("new"), "--fail-on", "knee<-5%"}, dir.file("c.log"));
    const std::string log = slurp(dir.file("c.log"));
    BOOST_TEST(rc == 10, log);
    BOOST_TEST(log.find("| knee | 6 | 6 .. 8 | 2 | 2 .. 4 | -66.7 % | worse |") != std::string::npos, log);
    BOOST_TEST(log.find("gate failed: knee<-5%") != std::string::npos, log);
    // A run and a sweep do not compare.
    BOOST_TEST(openloop_cli({"compare", dir.file("base"), dir.path.string()}, dir.file("mixed.log")) == 2);
    // Sweeps of other workloads: said before the table, and the gate refused.
    write_sweep("longer", 2, "1024");
    const int refused =
        openloop_cli({"compare", dir.file("base"), dir.file("longer"), "--fail-on", "knee<-5%"}, dir.file("longer.log"));
    const std::string said = slurp(dir.file("longer.log"));
    BOOST_TEST(refused == 2, said);
    BOOST_TEST(said.find("- lengths (input-len): `64` vs `1024`") < said.find("| knee |"), said);
    BOOST_TEST(said.find("gates refused: the workloads differ (lengths: input-len 64 vs 1024)") != std::string::npos, said);
}

// Parts of different runs are refused, naming what differs; merged only when
// asked, and the result says so.
BOOST_AUTO_TEST_CASE(merge_refuses_parts_of_different_runs_unless_allowed) {
    temp_dir dir;
    two_workloads(dir);
    int rc = openloop_cli({"merge", dir.file("a"), dir.file("b"), "--out", dir.file("m")}, dir.file("refused.log"));
    std::string log = slurp(dir.file("refused.log"));
    BOOST_TEST(rc == 2, log);
    BOOST_TEST(log.find("merge: the parts are not one run (each compared with " + dir.file("a") + "): " + dir.file("b") +
                        ": lengths: input-len 32 vs 64; rate: 4 vs 2. ") != std::string::npos,
               log);
    BOOST_TEST(log.find("--allow-mismatch") != std::string::npos, log);
    BOOST_TEST(!std::filesystem::exists(dir.file("m")));

    rc = openloop_cli({"merge", dir.file("a"), dir.file("b"), "--out", dir.file("m"), "--allow-mismatch"},
                      dir.file("allowed.log"));
    log = slurp(dir.file("allowed.log"));
    BOOST_TEST(rc == 0, log);
    BOOST_TEST(log.find("merging parts of different runs (--allow-mismatch): ") != std::string::npos, log);
    BOOST_TEST(log.find("poisson 4 req/s | poisson 2 req/s") != std::string::npos, log);
    const json::object merged = read_json(dir.file("m/summary.json")).at("merged").as_object();
    BOOST_TEST(merged.at("allow_mismatch").as_bool());
    const json::array& differences = merged.at("mismatches").at(0).at("differences").as_array();
    BOOST_TEST(differences.size() == 2u, json::serialize(merged));
    BOOST_TEST(differences.at(0).at("field").as_string() == "input-len");
}

// Runs of different workloads: compare says what differs before the table,
// and refuses its gates (exit 2) unless asked.
BOOST_AUTO_TEST_CASE(compare_says_what_differs_and_refuses_gates_across_workloads) {
    temp_dir dir;
    two_workloads(dir);
    int rc = openloop_cli({"compare", dir.file("a"), dir.file("b")}, dir.file("said.log"));
    std::string log = slurp(dir.file("said.log"));
    BOOST_TEST(rc == 0, log);
    BOOST_TEST(log.find("**The workloads differ**") < log.find("| metric |"), log);
    BOOST_TEST(log.find("- lengths (input-len): `32` vs `64`") != std::string::npos, log);
    BOOST_TEST(log.find("- rate: `4` vs `2`") != std::string::npos, log);

    rc = openloop_cli({"compare", dir.file("a"), dir.file("b"), "--fail-on", "ttft_mean>+1000%"}, dir.file("gated.log"));
    log = slurp(dir.file("gated.log"));
    BOOST_TEST(rc == 2, log);
    BOOST_TEST(log.find("compare: gates refused: the workloads differ (lengths: input-len 32 vs 64; rate: 4 vs 2)") !=
                   std::string::npos,
               log);
    BOOST_TEST(log.find("| metric |") != std::string::npos, log);  // the table still shown

    rc = openloop_cli({"compare", dir.file("a"), dir.file("b"), "--json", "--fail-on", "ttft_mean>+1000%",
                       "--allow-mismatch"},
                      dir.file("allowed.log"));
    log = slurp(dir.file("allowed.log"));
    BOOST_TEST(rc == 0, log);  // judged, and a tenfold rise is not there
    const json::object j = json::parse(log.substr(0, log.rfind('}') + 1)).as_object();
    BOOST_TEST(j.at("workloads_differ").as_bool());
    BOOST_TEST(j.at("allow_mismatch").as_bool());
}

BOOST_AUTO_TEST_SUITE_END()
