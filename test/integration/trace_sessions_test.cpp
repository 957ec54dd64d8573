#include <boost/test/unit_test.hpp>

// A trace whose rows carry a conversation id replays conversations against
// the simulator with its prefix cache: each session starts at its first
// row's time, a later turn goes at its row's time or when the answer before
// it ended, whichever is later, and carries the conversation so far (the
// simulator's own log of what it read), its prompt as long as the row says.
// A sessions run's requests.jsonl replays as sessions again.

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>

BOOST_AUTO_TEST_SUITE(it_trace_sessions)

namespace json = boost::json;
using namespace test_http;

namespace {

constexpr int sessions = 6, turns = 4, first_input = 600, new_tokens = 200, output = 40;
// Even sessions' rows follow 150 ms apart, sooner than an answer (about 0.5 s
// here): their turns wait for the answers. Odd ones' rows are 1.5 s apart.
std::int64_t row_ms(int s, int k) { return s * 100 + k * (s % 2 == 0 ? 150 : 1500); }
int row_input(int k) { return first_input + k * (output + new_tokens); }

std::string write_trace(const temp_dir& dir) {
    const std::string path = dir.file("chats.jsonl");
    std::vector<std::pair<std::int64_t, std::string>> rows;
    for (int s = 0; s < sessions; ++s)
        for (int k = 0; k < turns; ++k)
            rows.emplace_back(row_ms(s, k), json::serialize(json::object{
                                                {"t", row_ms(s, k)}, {"conv", "chat-" + std::to_string(s)},
                                                {"in", row_input(k)}, {"out", output}}));
    std::sort(rows.begin(), rows.end());
    std::ofstream out(path);
    for (const auto& [at, line] : rows) out << line << '\n';
    return path;
}

struct turn_record {
    std::int64_t intended, sent, end;
};

}  // namespace

BOOST_AUTO_TEST_CASE(a_traces_conversations_replay_turn_after_answer) {
    temp_dir dir;
    const std::string trace = write_trace(dir);
    const std::string sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log, "--log-content"});
    const int rc = run_openloop({"--target", sim.url, "--trace", trace, "--trace-columns",
                                 "time=t:ms,input=in,output=out,session=conv", "--ignore-eos", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));

    const json::object summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(summary.at("mode").as_string() == "sessions");
    const json::object& s = summary.at("sessions").as_object();
    BOOST_TEST(s.at("started").as_int64() == sessions);
    BOOST_TEST(s.at("completed").as_int64() == sessions);
    BOOST_TEST(s.at("turns_completed").as_int64() == sessions * turns);

    std::map<int, std::map<int, turn_record>> runs;
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        runs[static_cast<int>(r.at("session").as_int64())][static_cast<int>(r.at("turn").as_int64()) - 1] = {
            r.at("intended_ns").as_int64(), r.at("sent_ns").as_int64(), r.at("end_ns").as_int64()};
        // The prompt the server counted is the row's, history and all.
        BOOST_TEST(r.at("prompt_tokens").as_int64() == row_input(static_cast<int>(r.at("turn").as_int64()) - 1));
    }
    BOOST_TEST_REQUIRE(runs.size() == static_cast<std::size_t>(sessions));
    const std::int64_t origin = runs[0][0].intended;  // session 0's first row is at 0
    for (int id = 0; id < sessions; ++id) {
        BOOST_TEST_CONTEXT("session " << id) {
            BOOST_TEST_REQUIRE(runs[id].size() == static_cast<std::size_t>(turns));
            BOOST_TEST(runs[id][0].intended == origin + row_ms(id, 0) * 1'000'000);
            for (int k = 1; k < turns; ++k) {
                const turn_record& now = runs[id][k];
                const turn_record& before = runs[id][k - 1];
                const std::int64_t row = origin + row_ms(id, k) * 1'000'000;
                BOOST_TEST(now.intended >= before.end, "turn " << k << " was due before the answer it follows");
                BOOST_TEST(now.sent >= now.intended);
                if (id % 2 == 1) {
                    BOOST_TEST(before.end < row);
                    BOOST_TEST(now.intended == row, "turn " << k);  // the row's time, the answer long done
                } else {
                    BOOST_TEST(before.end > row);
                    // Due as the answer ended, to the nanosecond, not the rows' 150 ms gap after it.
                    BOOST_TEST(now.intended == before.end, "turn " << k);
                }
            }
        }
    }

    // What the simulator read: each turn's messages are the one before's, its answer, a new message.
    std::map<std::string, json::object> by_id;
    for (auto& line : read_jsonl(sim_log)) by_id[std::string(line.at("request_id").as_string())] = std::move(line);
    const auto logged = [&](int id, int k) -> const json::object& {
        return by_id.at("openloop-" + std::to_string(id * turns + k));
    };
    for (int id = 0; id < sessions; ++id)
        for (int k = 1; k < turns; ++k) {
            BOOST_TEST_CONTEXT("session " << id << " turn " << k + 1) {
                const json::object& now = logged(id, k);
                const json::object& before = logged(id, k - 1);
                json::array expected = before.at("messages").as_array();
                expected.push_back(json::object{{"role", "assistant"}, {"content", before.at("output")}});
                const json::array& sent = now.at("messages").as_array();
                BOOST_TEST_REQUIRE(sent.size() == expected.size() + 1);
                BOOST_TEST(json::array(sent.begin(), sent.end() - 1) == expected);
                BOOST_TEST(now.at("cached_tokens").as_int64() > before.at("cached_tokens").as_int64());
            }
        }

    // --loop replays the sessions lap after lap (--num-requests counts sessions).
    const int looped = run_openloop({"--target", sim.url, "--trace", trace, "--trace-columns",
                                     "time=t:ms,input=in,output=out,session=conv", "--loop", "--num-requests", "8",
                                     "--ignore-eos", "--out", dir.file("looped")},
                                    dir.file("looped.log"));
    BOOST_TEST_REQUIRE(looped == 0, slurp(dir.file("looped.log")));
    BOOST_TEST(read_json(dir.file("looped/summary.json")).at("sessions").at("turns_completed").as_int64() == 8 * turns);
    std::map<int, std::int64_t> first_due;
    for (const auto& r : read_jsonl(dir.file("looped/requests.jsonl")))
        if (r.at("turn").as_int64() == 1) first_due[static_cast<int>(r.at("session").as_int64())] = r.at("intended_ns").as_int64();
    BOOST_TEST_REQUIRE(first_due.size() == 8u);
    // The second lap's sessions start a trace period after the first's, 100 ms apart as before.
    BOOST_TEST(first_due[6] > first_due[5]);
    BOOST_TEST(first_due[7] - first_due[6] == first_due[1] - first_due[0]);
    BOOST_TEST(first_due[6] - first_due[0] == first_due[7] - first_due[1]);

    // The run's own requests.jsonl is a trace of the same sessions.
    const int again = run_openloop({"--target", sim.url, "--trace", dir.file("out/requests.jsonl"), "--ignore-eos",
                                    "--out", dir.file("again")},
                                   dir.file("again.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(again == 0, slurp(dir.file("again.log")));
    const json::object replayed = read_json(dir.file("again/summary.json"));
    BOOST_TEST(replayed.at("mode").as_string() == "sessions");
    BOOST_TEST(replayed.at("sessions").at("completed").as_int64() == sessions);
    BOOST_TEST(replayed.at("sessions").at("turns_completed").as_int64() == sessions * turns);
    for (const auto& r : read_jsonl(dir.file("again/requests.jsonl")))
        BOOST_TEST(r.at("prompt_tokens").as_int64() == row_input(static_cast<int>(r.at("turn").as_int64()) - 1));
}

BOOST_AUTO_TEST_CASE(a_session_trace_names_what_it_cannot_do) {
    temp_dir dir;
    const std::string trace = write_trace(dir);
    const std::string columns = "time=t:ms,input=in,output=out,session=conv";
    for (const auto& [flag, words] : std::vector<std::pair<std::vector<std::string>, std::string>>{
             {{"--endpoint", "completions"}, "need --endpoint chat"},
             {{"--no-stream"}, "drop --no-stream"},
             {{"--max-concurrency", "4"}, "drop --concurrency / --max-concurrency"}}) {
        std::vector<std::string> args = {"--target", "http://127.0.0.1:9", "--trace", trace, "--trace-columns", columns};
        args.insert(args.end(), flag.begin(), flag.end());
        const int rc = run_openloop(args, dir.file("bad.log"));
        const std::string log = slurp(dir.file("bad.log"));
        BOOST_TEST(rc == 2, flag.front() << ": " << log);
        BOOST_TEST(log.find(trace + ": its rows carry session ids") != std::string::npos, log);
        BOOST_TEST(log.find(words) != std::string::npos, log);
    }
    // A sweep's stages are judged on single requests at their rates: the rows go as such. The
    // firehose answers at once: a stage lasts 20 of its E2Es at least, and cpu-small's 2 s E2Es
    // held this one stage 40 s.
    openloop_cli({"sweep", "--target", "sim:firehose", "--trace", trace, "--trace-columns", columns, "--rates", "2",
                  "--duration", "2s", "--min-samples", "8", "--warmup", "0", "--cooldown", "0", "--stage-extension",
                  "1", "--out", dir.file("sweep")},
                 dir.file("sweep.log"));
    const std::string stage = dir.file("sweep/stage-00-2ps");
    BOOST_TEST_REQUIRE(std::filesystem::exists(stage + "/summary.json"), slurp(dir.file("sweep.log")));
    BOOST_TEST(read_json(stage + "/summary.json").at("mode").as_string() == "open-loop");
    BOOST_TEST(!std::filesystem::exists(stage + "/sessions.jsonl"));
}

BOOST_AUTO_TEST_SUITE_END()
