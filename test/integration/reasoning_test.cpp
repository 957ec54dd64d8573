// Thinking models on real sockets: against the simulator (both of vLLM's
// reasoning shapes) and vLLM's FastAPI/uvicorn stack, openloop's reasoning and
// answer tokens equal each server's usage request by request, its time to first
// answer token agrees with the server's log as its TTFT does, and a request that
// spent max_tokens thinking is named. The report rebuilt from requests.jsonl
// gives back the same figures.

#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

#include "openloop/cli/child_process.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

BOOST_AUTO_TEST_SUITE(it_reasoning)

namespace json = boost::json;
using namespace test_http;

namespace {

const auto num = json_int;

struct totals {
    std::int64_t reasoning = 0, answer = 0, ended = 0, split = 0, requests = 0;
};

// Each request's reasoning and answer tokens against the server's log; returns the sums (and
// in t.split the requests whose count divided a chunk of thinking and answer by its characters:
// source usage_deltas_split, within that chunk's tokens, when split_allowed).
totals check_against_log(const std::vector<json::object>& requests, const std::string& sim_log,
                         std::string_view source, bool split_allowed = false) {
    const std::map<std::string, json::object> server = sim_log_by_id(sim_log);
    totals t;
    std::vector<double> ttfa_diff;
    for (const auto& r : requests) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        BOOST_TEST_REQUIRE(r.contains("reasoning_tokens"), "no thinking read: " << r);
        const auto& s = server.at(std::string(r.at("id").as_string()));
        const std::int64_t reasoning = num(s.at("reasoning_tokens"));
        BOOST_TEST(num(r.at("reasoning_tokens")) + num(r.at("answer_tokens")) == num(s.at("completion_tokens")));
        if (split_allowed && r.at("reasoning_source") == "usage_deltas_split") {
            ++t.split;
            BOOST_TEST(std::abs(num(r.at("reasoning_tokens")) - reasoning) < 8);
        } else {
            BOOST_TEST(num(r.at("reasoning_tokens")) == reasoning);
            BOOST_TEST(r.at("reasoning_source").as_string() == source);
        }
        ++t.requests;
        t.reasoning += num(r.at("reasoning_tokens"));
        t.answer += num(r.at("answer_tokens"));
        const std::int64_t server_answer = num(s.at("first_answer_ns"));
        if (server_answer < 0) {
            // It never answered: named, and no time to first answer token.
            BOOST_TEST(r.at("ended_thinking").as_bool());
            BOOST_TEST(r.at("ttfa_ms").is_null());
            ++t.ended;
            continue;
        }
        BOOST_TEST(!r.contains("ended_thinking"));
        // The client sees the first answer chunk after the server wrote it, never before.
        BOOST_TEST(num(r.at("first_answer_ns")) >= server_answer);
        const double client = double(num(r.at("first_answer_ns")) - num(r.at("intended_ns")));
        const double served = double(server_answer - num(s.at("arrival_ns")));
        ttfa_diff.push_back(std::abs(client - served) / 1e6);
    }
    BOOST_TEST_MESSAGE("median |TTFA diff| " << median(ttfa_diff) << " ms");
    // The bound client_agrees_with_server_log (it_run) holds TTFT to.
    BOOST_TEST(median(ttfa_diff) < (openloop_test::sanitized ? 5.0 : 1.0));
    return t;
}

void check_summary(const json::object& summary, const totals& t, std::string_view source) {
    const json::object& r = summary.at("reasoning").as_object();
    BOOST_TEST(num(r.at("reasoning_tokens")) == t.reasoning);
    BOOST_TEST(num(r.at("answer_tokens")) == t.answer);
    BOOST_TEST(num(r.at("ended_thinking")) == t.ended);
    const std::string_view expected = t.split == 0 ? source : t.split == t.requests ? "usage_deltas_split" : "mixed";
    BOOST_TEST(r.at("reasoning_tokens_source").as_string() == expected);
    BOOST_TEST(num(summary.at("total_output_tokens")) == t.reasoning + t.answer);
    // TTFA comes after TTFT: the thinking came first.
    BOOST_TEST(summary.at("p50_ttfa_ms").as_double() > summary.at("p50_ttft_ms").as_double());
    BOOST_TEST(summary.at("p50_reasoning_ms").is_double());
}

}  // namespace

// vLLM's current shape: the usage's reasoning_tokens; some requests' max_tokens all go to thinking.
BOOST_AUTO_TEST_CASE(simulator_current_shape) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "h100-8b", "--reasoning-tokens", "uniform:4:48", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "40", "--input-len", "64",
                                 "--output-len", "uniform:8:64", "--ignore-eos", "--headline", "ttfa",
                                 "--threshold", "ttfa_p99<60s", "--threshold", "ttfa_p50<60s", "--goodput",
                                 "ttfa=60s", "--out", dir.file("out")},
                                dir.file("run.log"));
    const std::string printed = slurp(dir.file("run.log"));
    sim.process.stop();
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(requests.size() == 40u);
    const totals t = check_against_log(requests, sim_log, "usage");
    BOOST_TEST_REQUIRE(t.ended > 0);  // uniform:4:48 thinking against uniform:8:64 max_tokens runs out sometimes
    BOOST_TEST_REQUIRE(t.ended < 20);
    // A request that never answered is infinitely late: past 39 of 40 the p99 is, however fast the rest.
    BOOST_TEST(rc == 6, printed);
    BOOST_TEST(printed.find("threshold failed: ttfa_p99<60s: ttfa_p99 was infinite: " + std::to_string(t.ended) +
                            " of 40 completed requests never answered") != std::string::npos,
               printed);
    BOOST_TEST(printed.find("ttfa_p50<60s") == std::string::npos, printed);  // the median answered in time
    BOOST_TEST(printed.find(std::to_string(t.ended) + " never answered") != std::string::npos, printed);  // the table's TTFA row
    const json::object summary = read_json(dir.file("out/summary.json"));
    check_summary(summary, t, "usage");
    BOOST_TEST(summary.at("p99_ttfa_ms") == "inf");
    BOOST_TEST(summary.at("max_ttfa_ms") == "inf");
    // The requests that never answered miss the TTFA goodput SLO, the others meet it.
    BOOST_TEST(num(summary.at("goodput_requests")) == 40 - t.ended);
    BOOST_TEST(printed.find("headline       TTFA") != std::string::npos, printed);
    BOOST_TEST(printed.find("ended thinking ") != std::string::npos, printed);

    // Rebuilt from requests.jsonl alone: the same time to first answer token and split.
    std::filesystem::remove(dir.file("out/summary.json"));
    const int reported = openloop_cli({"report", dir.file("out")}, dir.file("report.log"));
    BOOST_TEST_REQUIRE(reported == 0, slurp(dir.file("report.log")));
    const json::object rebuilt = read_json(dir.file("out/summary.json"));
    BOOST_TEST(rebuilt.at("reasoning") == summary.at("reasoning"));
    for (const char* key : {"p50_ttfa_ms", "p99_ttfa_ms", "max_ttfa_ms", "p99_reasoning_ms"})
        BOOST_TEST(rebuilt.at(key) == summary.at(key), key);
}

// vLLM's older shape gives no reasoning_tokens: the thinking chunks' usage deltas count them.
BOOST_AUTO_TEST_CASE(simulator_older_shape) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--reasoning-tokens", "uniform:4:32",
                                                        "--reasoning-shape", "reasoning_content", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "30", "--input-len", "64",
                                 "--output-len", "48", "--ignore-eos", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    const totals t = check_against_log(read_jsonl(dir.file("out/requests.jsonl")), sim_log, "usage_deltas");
    BOOST_TEST(t.ended == 0);
    check_summary(read_json(dir.file("out/summary.json")), t, "usage_deltas");
}

// The older shape with the step that ends the thinking sent as one chunk (reasoning_content and
// content in one delta): its continuous usage is divided between the two, exactly when the chunk
// carried one token of each, else within its tokens and said to be an estimate.
BOOST_AUTO_TEST_CASE(simulator_thinking_and_answer_in_one_chunk) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "h100-8b", "--reasoning-tokens", "uniform:4:32", "--reasoning-shape",
                                    "reasoning_content", "--quirk", "thinking-answer-chunk", "--log", sim_log});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "30", "--input-len", "64",
                                 "--output-len", "48", "--ignore-eos", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    const totals t = check_against_log(read_jsonl(dir.file("out/requests.jsonl")), sim_log, "usage_deltas", true);
    BOOST_TEST(t.split < 30);  // one token of each is the simulator's usual step
    check_summary(read_json(dir.file("out/summary.json")), t, "usage_deltas");
}

// A server without a reasoning parser (the simulator's think-tags shape, as llama.cpp without
// --reasoning-format): <think>...</think> in the content is read as thinking by default, its
// tokens counted apart and the answer's first token timed after </think>, as the server's log
// has it; the result says the tags were read. With --reasoning-parser none the content is all
// answer, and the time to first answer token is the first token's.
BOOST_AUTO_TEST_CASE(simulator_thinking_between_tags_in_the_content) {
    temp_dir dir;
    const auto sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--reasoning-tokens", "uniform:4:32",
                                                        "--reasoning-shape", "think-tags", "--log", sim_log,
                                                        "--log-content"});
    const std::vector<std::string> load = {"--target", sim.url, "--rate", "20", "--num-requests", "30", "--input-len",
                                           "64", "--output-len", "48", "--ignore-eos"};
    std::vector<std::string> args = load;
    args.insert(args.end(), {"--out", dir.file("out")});
    const int rc = run_openloop(args, dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    const totals t = check_against_log(requests, sim_log, "usage_deltas", true);
    for (const auto& r : requests) BOOST_TEST(r.at("think_tags") == true);
    const json::object summary = read_json(dir.file("out/summary.json"));
    check_summary(summary, t, "usage_deltas");
    BOOST_TEST(summary.at("reasoning").at("parser") == "auto");
    BOOST_TEST(num(summary.at("reasoning").at("think_tag_requests")) == 30);
    BOOST_TEST(summary.at("config").at("reasoning-parser") == "auto");
    BOOST_TEST(read_json(dir.file("out/run.json")).at("config").at("reasoning-parser") == "auto");
    BOOST_TEST(slurp(dir.file("run.log")).find("30 thought between <think> tags") != std::string::npos);

    // A conversation sends each answer back without the thinking before its </think>, and
    // counts it so: every turn's intended input is what the server read.
    const int turns_rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "3", "--turns", "2",
                                       "--think-time", "10ms", "--input-len", "64", "--output-len", "48",
                                       "--ignore-eos", "--out", dir.file("turns")},
                                      dir.file("turns.log"));
    BOOST_TEST_REQUIRE(turns_rc == 0, slurp(dir.file("turns.log")));
    const auto served = sim_log_by_id(sim_log);
    int second_turns = 0;
    for (const auto& r : read_jsonl(dir.file("turns/requests.jsonl"))) {
        const json::object& seen = served.at(std::string(r.at("id").as_string()));
        BOOST_TEST(num(r.at("input_tokens")) == num(seen.at("prompt_tokens")));
        const json::array& sent = seen.at("messages").as_array();
        if (sent.size() < 3) continue;
        ++second_turns;
        // The first turn's answer as the server generated it, no tag and no thinking.
        const json::object& first = served.at("openloop-" + std::to_string(num(r.at("index")) - 1));
        BOOST_TEST(sent[1].at("content") == first.at("output"));
    }
    BOOST_TEST(second_turns == 3);

    args = load;
    args.insert(args.end(), {"--reasoning-parser", "none", "--out", dir.file("none")});
    const int none_rc = run_openloop(args, dir.file("none.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(none_rc == 0, slurp(dir.file("none.log")));
    const json::object none = read_json(dir.file("none/summary.json"));
    BOOST_TEST(num(none.at("reasoning").at("thinking_requests")) == 0);
    BOOST_TEST(none.at("reasoning").at("parser") == "none");
    for (const auto& r : read_jsonl(dir.file("none/requests.jsonl"))) BOOST_TEST(!r.contains("first_answer_ns"));
    BOOST_TEST(none.at("p99_ttfa_ms") == none.at("p99_ttft_ms"));
}

// vLLM's own HTTP stack (FastAPI over uvicorn) in both shapes: counts by its usage, request by request.
BOOST_AUTO_TEST_CASE(uvicorn_server_both_shapes) {
    for (const char* shape : {"reasoning", "reasoning_content"}) {
        temp_dir dir;
        auto server = openloop::start_server({"/usr/bin/python3",
                                              std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                              "--port", "0", "--reasoning-tokens", "5", "--reasoning-shape", shape,
                                              "--itl-ms", "20"},
                                             std::chrono::seconds(30));
        const int rc = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--rate", "20", "--num-requests",
                                     "12", "--input-len", "20", "--output-len", "9", "--ignore-eos", "--tokenizer",
                                     "words", "--out", dir.file("out")},
                                    dir.file("run.log"));
        BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
        const std::string source = std::string(shape) == "reasoning" ? "usage" : "usage_deltas";
        int answered_later = 0;  // the thinking (5 tokens 20 ms apart) came in reads of its own
        for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
            answered_later += num(r.at("first_answer_ns")) > num(r.at("first_token_ns"));
            BOOST_TEST(num(r.at("reasoning_tokens")) == 5, shape);
            BOOST_TEST(num(r.at("answer_tokens")) == 4, shape);
            BOOST_TEST(r.at("reasoning_source").as_string() == source, shape);
            // One clock per read: when the server's thinking and first answer chunks share a
            // read (a loaded machine coalesces them), the two times are equal.
            BOOST_TEST(num(r.at("first_answer_ns")) >= num(r.at("first_token_ns")), shape);
        }
        BOOST_TEST(answered_later > 0, shape);
        const json::object summary = read_json(dir.file("out/summary.json"));
        BOOST_TEST(num(summary.at("reasoning").at("thinking_requests")) == 12, shape);
    }
}

// A thinking agent on vLLM's HTTP stack: each step sends back the tool call it streamed (not
// its thinking) with the tool's result, and every request's intended input is what the
// server counted: the thinking left out of the history by each answer's own usage.
BOOST_AUTO_TEST_CASE(uvicorn_thinking_agent_counts_exactly) {
    temp_dir dir;
    auto server = openloop::start_server({"/usr/bin/python3",
                                          std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0", "--reasoning-tokens", "3", "--tool-chain", "2"},
                                         std::chrono::seconds(30));
    const int rc = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--rate", "10", "--num-requests", "3",
                                 "--turns", "2", "--tools", "2", "--tool-schema-len", "8", "--tool-latency", "10ms",
                                 "--tool-result-len", "5", "--think-time", "10ms", "--input-len", "12", "--output-len", "9",
                                 "--ignore-eos", "--tokenizer", "words", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const auto requests = read_jsonl(dir.file("out/requests.jsonl"));
    BOOST_TEST_REQUIRE(requests.size() == 18u);  // 3 sessions x 2 turns x (2 calls + the answer)
    int calls = 0;
    for (const auto& r : requests) {
        BOOST_TEST(num(r.at("prompt_tokens")) == num(r.at("input_tokens")));
        BOOST_TEST(num(r.at("reasoning_tokens")) == 3);
        BOOST_TEST(num(r.at("answer_tokens")) == 6);
        calls += r.contains("tool_call");
    }
    BOOST_TEST(calls == 12);
    const json::object summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(num(summary.at("reasoning").at("tool_calls")) == 12);
    BOOST_TEST(num(summary.at("sessions").at("tool_calls")) == 12);
}

// llama.cpp's server before it streamed tool calls refuses a streamed request with tools (HTTP
// 500 "Cannot use tools with stream"; docs/real-servers.md): the simulator learned it, and
// openloop's result says it in the server's words (a 5xx is never a reason to stop early:
// it is what a load test measures).
BOOST_AUTO_TEST_CASE(a_server_that_cannot_stream_tools_is_named) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--quirk", "no-stream-tools"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--duration", "1s", "--tools", "2",
                                 "--input-len", "32", "--output-len", "8", "--out", dir.file("out")},
                                dir.file("run.log"));
    const std::string printed = slurp(dir.file("run.log"));
    BOOST_TEST(rc != 0, printed);
    BOOST_TEST(printed.find("Cannot use tools with stream") != std::string::npos, printed);
    const json::object summary = read_json(dir.file("out/summary.json"));
    BOOST_TEST(num(summary.at("completed")) == 0);
    BOOST_TEST(summary.at("error_messages").at(0).at("messages").at(0).as_string() ==
               "Cannot use tools with stream");
}

BOOST_AUTO_TEST_SUITE_END()
