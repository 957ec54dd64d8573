#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "openloop/sim/engine.hpp"
#include "openloop/results/slo.hpp"
#include "openloop/results/sweep_json.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_sweep)

namespace json = boost::json;
using namespace test_http;

namespace {

double predicted(const std::string& preset, int input, int output) {
    return openloop::predict_capacity(*openloop::find_preset(preset), input, output).max_request_rate;
}

// A sweep against a simulator preset with short stages: each runs until its
// queue verdict is decided (at least 20 of its E2Es), which sets its length
// near the knee; 150 samples at least, as unit_knee_grid's sweeps.
json::object sweep(const temp_dir& dir, const std::string& name, const std::string& preset, int input, int output,
                   const std::string& rates) {
    const std::string out = dir.file(name);
    const std::string cmd = std::string(openloop_test::bin) + " sweep --progress off --target sim:" + preset +
                            " --input-len " + std::to_string(input) + " --output-len " + std::to_string(output) +
                            " --ignore-eos " + rates +
                            " --stage-duration 4s --min-samples 150 --warmup 2s --cooldown 0.5s"
                            " --out " + out + " > " + out + ".log 2>&1";
    const int rc = std::system(cmd.c_str());
    BOOST_TEST_REQUIRE(rc == 0, slurp(out + ".log"));
    return read_json(out + "/sweep.json");
}

void expect_knee_near_prediction(const json::object& sweep, const std::string& preset, int input, int output) {
    const auto capacity = predicted(preset, input, output);
    const auto& knee = sweep.at("knees").as_object().at("saturation").as_object();
    BOOST_TEST_REQUIRE(knee.at("found").as_bool(), knee.at("explanation").as_string());
    const double rate = knee.at("rate").to_number<double>();
    BOOST_TEST_MESSAGE(preset << " " << input << "/" << output << ": saturation knee " << rate << " req/s, predicted "
                              << capacity << " (" << knee.at("explanation").as_string() << ")");
    BOOST_TEST(rate >= 0.9 * capacity);
    BOOST_TEST(rate <= 1.1 * capacity);
}

// The stage numbers of the table rows whose knee cell (the last) names the mark.
std::vector<std::string> stages_marked(const std::string& md, const std::string& mark) {
    std::vector<std::string> stages;
    std::istringstream lines(md);
    for (std::string line; std::getline(lines, line);) {
        if (line.rfind("| ", 0) != 0 || line.size() < 2 || line.back() != '|') continue;
        const auto knee_start = line.rfind('|', line.size() - 2);
        if (line.substr(knee_start).find(mark) == std::string::npos) continue;
        const auto first_end = line.find('|', 1);
        std::string stage = line.substr(1, first_end - 1);
        stage.erase(0, stage.find_first_not_of(' '));
        stage.erase(stage.find_last_not_of(' ') + 1);
        stages.push_back(stage);
    }
    return stages;
}

}  // namespace

// Alone (test/tests.cmake): the knee is the simulator's capacity in real time,
// which another test's load on the same cores would lower.
BOOST_AUTO_TEST_CASE(saturation_knee_matches_the_predicted_capacity, *boost::unit_test::label("alone")) {
    temp_dir dir;
    // An automatic sweep (ramp x2 from about half the capacity, bisect to 5 %).
    const auto cpu = sweep(dir, "cpu", "cpu-small", 32, 8, "--rates auto --start-rate 16 --precision 5%");
    expect_knee_near_prediction(cpu, "cpu-small", 32, 8);
    // The other preset, six times the rate, at 10 % under and over its
    // prediction: the first stage good and the second saturated put its knee
    // within the same ±10 %, in two stages instead of an automatic sweep's seven.
    const double h100_capacity = predicted("h100-8b", 128, 16);
    std::ostringstream rates;
    rates << std::setprecision(17) << "--rates " << 0.9 * h100_capacity << "," << 1.1 * h100_capacity;
    const auto h100 = sweep(dir, "h100", "h100-8b", 128, 16, rates.str());
    const auto& h100_stages = h100.at("stages").as_array();
    BOOST_TEST_REQUIRE(h100_stages.size() == 2u);
    BOOST_TEST(h100_stages[0].at("verdict").as_string() == "good", json::serialize(h100_stages[0].at("saturation_evidence")));
    BOOST_TEST(h100_stages[1].at("saturated").as_bool(), json::serialize(h100_stages[1].at("saturation_evidence")));
    expect_knee_near_prediction(h100, "h100-8b", 128, 16);

    // The report's files and shape.
    for (const char* f : {"sweep.json", "sweep.md", "sweep.csv"})
        BOOST_TEST(std::filesystem::exists(dir.file("cpu") + "/" + f), f);
    const std::string md = slurp(dir.file("cpu") + "/sweep.md");
    const auto& stages = cpu.at("stages").as_array();
    // The knee column marks the knee's stage alone (the latency bend may share its
    // cell). The knee's "stage" is the row's index in rate order; the table's first
    // column is the number the stage ran as, which a bisection takes out of order.
    const auto knee_index = cpu.at("knees").as_object().at("saturation").as_object().at("stage").to_number<int>();
    std::string knee_run;
    for (const auto& s : stages)
        if (s.as_object().at("index").to_number<int>() == knee_index)
            knee_run = std::to_string(s.as_object().at("run").to_number<int>());
    BOOST_TEST(stages_marked(md, "saturation knee") == std::vector<std::string>{knee_run}, md);
    BOOST_TEST(md.find("Little's law") != std::string::npos);
    BOOST_TEST(stages.size() >= 4u);
    for (const auto& s : stages) {
        const auto& row = s.as_object();
        BOOST_TEST(std::filesystem::exists(dir.file("cpu") + "/" + std::string(row.at("dir").as_string()) + "/summary.json"));
        if (!row.at("aborted").as_bool()) BOOST_TEST(row.at("samples").to_number<int>() >= 150);
        // Enough samples for p99: the confidence interval is bounded and brackets the estimate.
        const auto& ttft = row.at("ttft_ms").as_object();
        if (row.at("samples").to_number<int>() >= 368) {
            const auto& ci = ttft.at("p99_ci").as_array();
            BOOST_TEST(ci[0].to_number<double>() <= ttft.at("p99").to_number<double>() + 1e-9);
            BOOST_TEST(ci[1].to_number<double>() >= ttft.at("p99").to_number<double>() - 1e-9);
        }
    }

    // The SLO knee moves down when the SLO is tightened: judge the same measured
    // stages against a loose and a tight E2E p95 limit taken from the data.
    std::vector<openloop::stage_row> rows;
    std::vector<double> e2e;
    for (const auto& s : stages) {
        rows.push_back(openloop::stage_row_from_json(s.as_object()));
        if (s.as_object().at("verdict").as_string() == "good")
            e2e.push_back(s.as_object().at("e2e_ms").as_object().at("p95").to_number<double>());
    }
    std::sort(e2e.begin(), e2e.end());
    BOOST_TEST_REQUIRE(e2e.size() >= 2u);
    const auto knee_at = [&](double limit_ms) {
        const auto slos = openloop::parse_slos({"e2e_p95=" + std::to_string(limit_ms) + "ms"});
        const auto report = openloop::analyse_sweep(rows, slos, false, 30);
        const auto& k = report.knees.slo.value().point;
        return k.found ? k.rate : 0.0;
    };
    const double loose = knee_at(e2e.back() + 1);
    const double tight = knee_at((e2e.front() + e2e[1]) / 2);
    BOOST_TEST_MESSAGE("SLO knee: loose " << loose << " req/s, tight " << tight << " req/s");
    BOOST_TEST(loose > 0);
    BOOST_TEST(tight < loose);
    BOOST_TEST(knee_at(e2e.front() / 2) == 0.0);  // tighter than anything measured: no stage qualifies
}

BOOST_AUTO_TEST_CASE(closed_loop_ladder_uses_the_same_report) {
    temp_dir dir;
    const std::string out = dir.file("ladder");
    const std::string cmd = std::string(openloop_test::bin) +
                            " sweep --progress off --target sim:cpu-small --input-len 16 --output-len 4 --ignore-eos"
                            " --concurrency 1,4,16 --min-samples 40 --warmup 1s --cooldown 0s --out " + out + " > " +
                            out + ".log 2>&1";
    BOOST_TEST_REQUIRE(std::system(cmd.c_str()) == 0, slurp(out + ".log"));
    const auto sweep = read_json(out + "/sweep.json");
    BOOST_TEST(sweep.at("mode").as_string() == "closed-loop");
    const auto& stages = sweep.at("stages").as_array();
    BOOST_TEST_REQUIRE(stages.size() == 3u);
    // More workers, more throughput, until the batch (8 sequences) is full.
    const double c1 = stages[0].as_object().at("achieved_rate").to_number<double>();
    const double c4 = stages[1].as_object().at("achieved_rate").to_number<double>();
    BOOST_TEST(c4 > 2 * c1);
    BOOST_TEST(slurp(out + "/sweep.md").find("| concurrency |") != std::string::npos);
}

// A server whose requests partly fail is not saturated: each stage reports
// its error rate and classes, and the sweep names the errors instead of a knee.
BOOST_AUTO_TEST_CASE(failing_requests_are_errors_not_saturation) {
    temp_dir dir;
    const std::string out = dir.file("faulty");
    const std::string cmd = std::string(openloop_test::bin) +
                            " sweep --progress off --target sim:firehose --sim-arg=--fault-disconnect=0.25"
                            " --input-len 32 --output-len 16 --ignore-eos --rates 20,40 --stage-duration 3s"
                            " --min-samples 60 --warmup 0 --cooldown 0.2s --out " + out + " > " + out + ".log 2>&1";
    const int rc = std::system(cmd.c_str());
    BOOST_TEST_REQUIRE(rc == 0, slurp(out + ".log"));
    const auto sweep = read_json(out + "/sweep.json");
    for (const auto& stage : sweep.at("stages").as_array()) {
        const auto& s = stage.as_object();
        BOOST_TEST(s.at("verdict").as_string() == "errors", json::serialize(s.at("verdict")));
        BOOST_TEST(s.at("follows").as_bool());
        BOOST_TEST(s.at("errors").as_object().at("stream_truncated").to_number<int>() > 0);
        BOOST_TEST(s.at("error_rate").to_number<double>() > 0.1);
    }
    const auto& saturation = sweep.at("knees").as_object().at("saturation").as_object();
    BOOST_TEST(!saturation.at("below_range").as_bool(), json::serialize(saturation));
    const std::string capacity(sweep.at("capacity").as_object().at("text").as_string());
    BOOST_TEST(capacity.find("errors, not saturation") != std::string::npos, capacity);
    BOOST_TEST(capacity.find("stream_truncated") != std::string::npos, capacity);
    const std::string table = slurp(out + "/sweep.md");
    // No stage's verdict says saturated (the evidence lines may say "not saturated").
    BOOST_TEST(table.find("| saturated") == std::string::npos, table);
    BOOST_TEST(table.find("saturation not reached") != std::string::npos, table);
    BOOST_TEST(table.find("errors 2") != std::string::npos, table);
}

// A sweep over a trace shorter than a stage: each stage replays the trace's gaps
// scaled to its own rate, lap after lap until the stage's bounds, with the rows'
// lengths. Before, every stage sent the trace once at its recorded speed.
BOOST_AUTO_TEST_CASE(trace_stages_replay_at_their_rates) {
    temp_dir dir;
    const std::string trace = dir.file("short.jsonl");
    {
        std::ofstream rows(trace);
        for (int i = 0; i < 12; ++i)  // 12 rows 90 ms apart, 24 to 35 input tokens
            rows << "{\"timestamp\": " << i * 90 << ", \"input_length\": " << 24 + i << ", \"output_length\": 4}\n";
    }
    const std::string out = dir.file("traced");
    const std::string cmd = std::string(openloop_test::bin) + " sweep --progress off --target sim:cpu-small --trace " +
                            trace + " --rates 5,20 --stage-duration 2s --min-samples 30 --warmup 0 --cooldown 0"
                            " --out " + out + " > " + out + ".log 2>&1";
    BOOST_TEST_REQUIRE(std::system(cmd.c_str()) == 0, slurp(out + ".log"));
    const auto stages = read_json(out + "/sweep.json").at("stages").as_array();
    BOOST_TEST_REQUIRE(stages.size() == 2u);
    for (const auto& s : stages) {
        const auto& row = s.as_object();
        const double rate = row.at("offered_rate").to_number<double>();
        const auto log = read_jsonl(out + "/" + std::string(row.at("dir").as_string()) + "/requests.jsonl");
        BOOST_TEST_CONTEXT("stage at " << rate << " req/s") {
            BOOST_TEST(log.size() >= 30u);  // laps past the trace's 12 rows
            for (std::size_t i = 1; i < log.size(); ++i) {
                const auto gap = log[i].at("intended_ns").to_number<std::int64_t>() -
                                 log[i - 1].at("intended_ns").to_number<std::int64_t>();
                BOOST_TEST(std::abs(gap - std::int64_t(1e9 / rate)) <= 1000, "request " << i << ": gap " << gap);
                BOOST_TEST(log[i].at("input_tokens").to_number<int>() == 24 + int(i % 12));
            }
            BOOST_TEST(row.at("achieved_rate").to_number<double>() > 0.9 * rate);
        }
    }
}

// SIGTERM in the middle of a stage: the stage is reported as cut and never
// judged, on stdout, in sweep.md and in sweep.json, and nothing is concluded
// past the stage before it ("saturation not reached" would claim the cut rate).
BOOST_AUTO_TEST_CASE(a_stage_cut_by_sigterm_is_reported_cut_and_never_judged) {
    temp_dir dir;
    const std::string out = dir.file("sweep");
    openloop::child_process sweep({"/bin/sh", "-c",
                                   "exec " + std::string(openloop_test::bin) +
                                       " sweep --progress off --rates 4,8 --stage-duration 3s --min-samples 8"
                                       " --stage-extension 1 --warmup 0 --cooldown 0.2s --input-len 32 --output-len 8"
                                       " --out " + out + " > " + out + ".log 2>&1"});
    // Stage 1 has begun once its run.json is written (before its first request).
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    const auto stage1_started = [&] {
        if (!std::filesystem::is_directory(out)) return false;
        for (const auto& e : std::filesystem::directory_iterator(out))
            if (e.path().filename().string().rfind("stage-01-", 0) == 0 && std::filesystem::exists(e.path() / "run.json"))
                return true;
        return false;
    };
    while (!stage1_started() && sweep.running() && std::chrono::steady_clock::now() < deadline)
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    BOOST_TEST_REQUIRE(stage1_started(), slurp(out + ".log"));
    std::this_thread::sleep_for(std::chrono::seconds(1));  // inside its window of at least 3 s
    const int rc = sweep.stop(std::chrono::seconds(30));
    const std::string log = slurp(out + ".log");
    BOOST_TEST(rc == 130, log);

    const std::string said = "Interrupted (Ctrl-C or SIGTERM) during stage 1 (8 req/s): that stage is cut, not judged";
    const std::string md = slurp(out + "/sweep.md");
    for (const std::string* text : {&log, &md}) {
        BOOST_TEST(text->find(said) != std::string::npos, *text);
        BOOST_TEST(text->find("| cut: not judged |") != std::string::npos, *text);
        BOOST_TEST(text->find("not reached") == std::string::npos, *text);
        BOOST_TEST(text->find("Saturation knee**: not known: the sweep was cut in stage 1 (8 req/s)") != std::string::npos,
                   *text);
    }
    BOOST_TEST(log.find("-> cut by the interrupt after") != std::string::npos, log);
    const json::object sweep_json = read_json(out + "/sweep.json");
    BOOST_TEST(sweep_json.at("interrupted").as_bool());
    BOOST_TEST(sweep_json.at("cut_stage").at("verdict").as_string() == "cut");
    BOOST_TEST(sweep_json.at("stages").as_array().size() == 1u);  // only stage 0 is judged
    BOOST_TEST(sweep_json.at("stages").at(0).at("offered_rate").to_number<double>() == 4.0);
    BOOST_TEST(!sweep_json.at("knees").at("saturation").at("found").as_bool());
}

BOOST_AUTO_TEST_SUITE_END()
