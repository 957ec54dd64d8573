#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

// Multi-turn sessions against the simulator with its prefix cache: every
// later turn carries the conversation exactly as it went (the simulator's
// own log of what it read and wrote), the server finds more of it cached
// turn by turn and answers sooner than its whole history could be prefilled;
// the sessions keep their Poisson arrivals while the turns inside follow
// their answers by the think time.

#include "openloop/cli/child_process.hpp"
#include "hostile_server.hpp"
#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>

BOOST_AUTO_TEST_SUITE(it_session)

namespace json = boost::json;
using namespace test_http;

namespace {

std::int64_t num(const json::value& v) { return v.is_null() ? -1 : v.to_number<std::int64_t>(); }

// A prompt token costs this much to prefill (--prefill-token-ms below; the h100-8b preset
// has 0.035): enough that a whole turn-6 history takes some 300 ms to prefill, so a
// cached answer stays clear of that bound however late the machine runs it.
constexpr double prefill_token_ms = 0.06;

const json::object& turn(const json::object& summary, std::size_t k) {
    return summary.at("sessions").at("by_turn").as_array().at(k - 1).as_object();
}

}  // namespace

BOOST_AUTO_TEST_CASE(later_turns_carry_the_exact_history_and_find_it_cached) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--prefill-token-ms",
                                                        std::to_string(prefill_token_ms), "--log",
                                                        dir.file("sim.jsonl"), "--log-content"});
    const int rc = run_openloop({"--target", sim.url, "--out", dir.file("out"), "--rate", "2", "--num-requests", "10",
                                 "--turns", "6", "--think-time", "50ms", "--input-len", "800", "--output-len", "24",
                                 "--ignore-eos", "--seed", "5"},
                                dir.file("run.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const json::object summary = read_json(dir.file("out") + "/summary.json");
    const json::object& sessions = summary.at("sessions").as_object();
    BOOST_TEST(sessions.at("started").as_int64() == 10);
    BOOST_TEST(sessions.at("completed").as_int64() == 10);
    BOOST_TEST(sessions.at("turns_completed").as_int64() == 60);
    BOOST_TEST(sessions.at("latency_ms").at("p50").to_number<double>() > 5 * 50.0);  // five think times at least
    BOOST_TEST(summary.at("mode").as_string() == "sessions");

    // The server's cache holds more of each conversation turn after turn, and the first turn found none.
    BOOST_TEST(turn(summary, 1).at("mean_cached_tokens").to_number<double>() == 0.0);
    for (std::size_t k = 2; k <= 6; ++k) {
        BOOST_TEST_CONTEXT("turn " << k) {
            const auto& now = turn(summary, k);
            const auto& before = turn(summary, k - 1);
            BOOST_TEST(now.at("completed").as_int64() == 10);
            BOOST_TEST(now.at("mean_cached_tokens").to_number<double>() >
                       before.at("mean_cached_tokens").to_number<double>());
            BOOST_TEST(now.at("mean_prompt_tokens").to_number<double>() ==
                       before.at("mean_prompt_tokens").to_number<double>() + 24 + 800);
        }
    }

    // What the simulator read: turn k's messages are turn k - 1's, its answer as the server
    // wrote it, and one new user message; the prompt it counted is all of that.
    std::map<std::int64_t, std::map<std::int64_t, json::object>> by_session;
    for (auto& line : read_jsonl(dir.file("sim.jsonl"))) {
        const std::string id(line.at("request_id").as_string());
        const std::int64_t index = std::stoll(id.substr(id.rfind('-') + 1));
        by_session[index / 6][index % 6 + 1] = std::move(line);
    }
    BOOST_TEST_REQUIRE(by_session.size() == 10u);
    for (const auto& [session, turns] : by_session) {
        BOOST_TEST_REQUIRE(turns.size() == 6u);
        for (std::int64_t k = 2; k <= 6; ++k) {
            BOOST_TEST_CONTEXT("session " << session << " turn " << k) {
                const json::object& now = turns.at(k);
                const json::object& before = turns.at(k - 1);
                const json::array& sent = now.at("messages").as_array();
                json::array expected = before.at("messages").as_array();
                expected.push_back(json::object{{"role", "assistant"}, {"content", before.at("output")}});
                BOOST_TEST_REQUIRE(sent.size() == expected.size() + 1);
                BOOST_TEST(json::array(sent.begin(), sent.end() - 1) == expected);
                BOOST_TEST(sent.back().at("role").as_string() == "user");
                BOOST_TEST(now.at("prompt_tokens").as_int64() ==
                           before.at("prompt_tokens").as_int64() + before.at("completion_tokens").as_int64() + 800);
                BOOST_TEST(now.at("cached_tokens").as_int64() > 0);
            }
        }
    }
    // Every turn's length was the one intended, as the server counted it.
    for (const auto& r : read_jsonl(dir.file("out") + "/requests.jsonl")) {
        BOOST_TEST(num(r.at("prompt_tokens")) == num(r.at("input_tokens")));
        BOOST_TEST(num(r.at("output_tokens")) == 24);
    }

    // By the last turn a sixth of the prompt is new: the server found all of the turn before's
    // prompt cached, to a 16-token block (its answer was decoded, not prefilled).
    BOOST_TEST(turn(summary, 6).at("mean_cached_tokens").to_number<double>() >=
               turn(summary, 5).at("mean_prompt_tokens").to_number<double>() - 16);

    // And the answers show it: the fastest last turn came back sooner than any server could
    // prefill its whole history (a step never ends before its cost), some 55 ms of prefill
    // against 300. A bound, not a race against a twin run without the cache: lateness on a
    // loaded machine only adds time, and here it would have to delay all ten last turns by
    // some 200 ms each. Two runs compared while the machine was loaded met different moments
    // of its load: on CI (sanitized build, a build beside) the cached run's turn-6 TTFT p50
    // once came out 454 ms against the uncached run's 362.
    double fastest_last_turn = 1e9;
    for (const auto& r : read_jsonl(dir.file("out") + "/requests.jsonl"))
        if (r.at("turn").as_int64() == 6) fastest_last_turn = std::min(fastest_last_turn, r.at("ttft_ms").to_number<double>());
    const double whole_prefill_ms = turn(summary, 6).at("mean_prompt_tokens").to_number<double>() * prefill_token_ms;
    BOOST_TEST(fastest_last_turn < whole_prefill_ms);
}

BOOST_AUTO_TEST_CASE(sessions_keep_their_arrivals_while_turns_follow_answers) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b"});
    const double rate = 25;
    const int rc = run_openloop({"--target", sim.url, "--rate", "25", "--num-requests", "400", "--turns", "uniform:2:4",
                                 "--think-time", "200ms", "--input-len", "32", "--output-len", "8", "--ignore-eos",
                                 "--seed", "17", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();

    std::map<std::int64_t, std::map<std::int64_t, json::object>> by_session;
    for (auto& r : read_jsonl(dir.file("out") + "/requests.jsonl")) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        by_session[num(r.at("session"))][num(r.at("turn"))] = std::move(r);
    }
    BOOST_TEST_REQUIRE(by_session.size() == 400u);

    // First turns: sent as the session schedule asked, whose gaps are exponential at the rate (KS, alpha 0.01).
    std::vector<std::int64_t> firsts;
    for (const auto& [session, turns] : by_session) firsts.push_back(num(turns.at(1).at("sent_ns")));
    std::sort(firsts.begin(), firsts.end());
    std::vector<double> gaps;
    for (std::size_t i = 1; i < firsts.size(); ++i) gaps.push_back(static_cast<double>(firsts[i] - firsts[i - 1]) / 1e9);
    std::sort(gaps.begin(), gaps.end());
    double d = 0;
    const double n = static_cast<double>(gaps.size());
    for (std::size_t i = 0; i < gaps.size(); ++i) {
        const double cdf = 1 - std::exp(-rate * gaps[i]);
        d = std::max({d, (static_cast<double>(i) + 1) / n - cdf, cdf - static_cast<double>(i) / n});
    }
    BOOST_TEST(d < 1.63 / std::sqrt(n), "KS distance " << d);

    // Later turns: each due its think time after the answer before it ended, to the nanosecond
    // (the read that completed it, the end requests.jsonl logs: a late wake-up is lag, not a
    // longer think), and not sent before it was due.
    int later = 0;
    for (const auto& [session, turns] : by_session) {
        for (auto it = std::next(turns.begin()); it != turns.end(); ++it) {
            const json::object& before = std::prev(it)->second;
            const json::object& now = it->second;
            const std::int64_t wait = num(now.at("intended_ns")) - num(before.at("end_ns"));
            BOOST_TEST_CONTEXT("session " << session << " turn " << it->first) {
                BOOST_TEST(wait == 200'000'000);
                BOOST_TEST(num(now.at("sent_ns")) >= num(now.at("intended_ns")));
            }
            ++later;
        }
    }
    BOOST_TEST(later > 400);
    const json::object summary = read_json(dir.file("out") + "/summary.json");
    BOOST_TEST(summary.at("sessions").at("turns_completed").as_int64() == static_cast<std::int64_t>(400 + later));
}

BOOST_AUTO_TEST_CASE(recorded_conversations_replay_every_user_turn) {
    temp_dir dir;
    // ShareGPT: every human turn is sent, in order, each after the server's own answer to the one before.
    std::ofstream(dir.file("chats.json")) << R"([
      {"conversations": [{"from": "system", "value": "answer briefly"},
                         {"from": "human", "value": "first question here"}, {"from": "gpt", "value": "one two three four"},
                         {"from": "human", "value": "second"}, {"from": "gpt", "value": "five six"},
                         {"from": "human", "value": "third and last"}, {"from": "gpt", "value": "seven"}]},
      {"conversations": [{"from": "human", "value": "only once"}, {"from": "gpt", "value": "eight nine"}]}
    ])";
    const std::string sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--log", sim_log, "--log-content"});
    const int rc = run_openloop({"--target", sim.url, "--conversations", dir.file("chats.json"), "--rate", "4",
                                 "--num-requests", "4", "--ignore-eos", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    const json::object summary = read_json(dir.file("out") + "/summary.json");
    BOOST_TEST(summary.at("sessions").at("turns_completed").as_int64() == 3 + 1 + 3 + 1);

    std::map<std::string, json::object> logged;
    for (auto& line : read_jsonl(sim_log)) logged[std::string(line.at("request_id").as_string())] = std::move(line);
    // Sessions 0 and 2 replay the first conversation (stride 3: ids 0-2 and 6-8), 1 and 3 the second.
    for (const int first : {0, 6}) {
        const json::array& last = logged.at("openloop-" + std::to_string(first + 2)).at("messages").as_array();
        BOOST_TEST_REQUIRE(last.size() == 6u);
        BOOST_TEST(last[0].at("role").as_string() == "system");
        BOOST_TEST(last[1].at("content").as_string() == "first question here");
        BOOST_TEST(last[3].at("content").as_string() == "second");
        BOOST_TEST(last[5].at("content").as_string() == "third and last");
        // The answers sent back are the server's, at the recorded lengths.
        BOOST_TEST(last[2].at("content") == logged.at("openloop-" + std::to_string(first)).at("output"));
        BOOST_TEST(logged.at("openloop-" + std::to_string(first)).at("completion_tokens").as_int64() == 4);
        BOOST_TEST(logged.at("openloop-" + std::to_string(first + 1)).at("completion_tokens").as_int64() == 2);
    }
    BOOST_TEST(logged.at("openloop-3").at("messages").as_array().size() == 1u);
    BOOST_TEST(logged.size() == 8u);
}

// A server on an HTTP stack we did not write (FastAPI over uvicorn, vLLM's chunk shapes, its
// 5 s keep-alive closes met by think times past them): each turn's prompt, as that server
// counted it, is the whole conversation with the answers it streamed.
BOOST_AUTO_TEST_CASE(sessions_against_uvicorn_resend_what_it_streamed) {
    temp_dir dir;
    auto server = openloop::start_server({"/usr/bin/python3", std::string(openloop_test::source_dir) + "/test/servers/vllm_uvicorn.py",
                                          "--port", "0", "--timeout-keep-alive", "5"},
                                         std::chrono::seconds(30));
    const int rc = run_openloop({"--target", server.url, "--model", "vllm-uvicorn", "--rate", "1", "--num-requests", "4",
                                 "--turns", "3", "--think-time", "uniform:100ms:6s", "--input-len", "20",
                                 "--output-len", "6", "--ignore-eos", "--tokenizer", "words", "--seed", "3",
                                 "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    int later = 0;
    for (const auto& r : read_jsonl(dir.file("out") + "/requests.jsonl")) {
        BOOST_TEST_REQUIRE(r.at("status").as_string() == "ok");
        const std::int64_t turn = num(r.at("turn"));
        BOOST_TEST(num(r.at("prompt_tokens")) == (turn - 1) * (20 + 6) + 20);
        later += turn > 1;
    }
    BOOST_TEST(later == 8);
}

namespace {

// A chat server that plays an agent's model as the contract between the parts says the
// simulator does (--tool-chain 2): a request with tools and fewer than two tool messages after
// its last user message is answered with a tool call, streamed in pieces as vLLM does; any
// other with text. It keeps each request's body by its x-request-id.
struct tool_chain_server {
    std::mutex mutex;
    std::map<std::int64_t, json::object> bodies;
    hostile::server server{[this](hostile::connection& c, const hostile::request& r) { return answer(c, r); }};

    static std::string chunk(const std::string& delta, const char* finish) {
        return "data: {\"id\":\"chatcmpl-1\",\"object\":\"chat.completion.chunk\",\"model\":\"m\",\"choices\":[{\"index\":0,"
               "\"delta\":" + delta + ",\"finish_reason\":" + finish + "}]}\n\n";
    }

    bool answer(hostile::connection& c, const hostile::request& r) {
        if (r.head.rfind("POST /v1/chat/completions", 0) != 0)
            return c.send("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
        const json::object body = json::parse(r.body).as_object();
        const auto id_at = r.head.find("x-request-id: openloop-");
        if (id_at == std::string::npos) {
            // The setup's probes of what the tools cost: 40 prompt tokens here.
            const std::string usage = R"({"choices":[{"index":0,"message":{"role":"assistant","content":"a"},"finish_reason":"length"}],)"
                                      R"("usage":{"prompt_tokens":)" + std::to_string(body.contains("tools") ? 50 : 10) +
                                      R"(,"completion_tokens":1,"total_tokens":2}})";
            return c.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: " +
                          std::to_string(usage.size()) + "\r\n\r\n" + usage);
        }
        const std::int64_t index = std::stoll(r.head.substr(id_at + 23));
        {
            std::lock_guard lock(mutex);
            bodies[index] = body;
        }
        const json::array& messages = body.at("messages").as_array();
        int results = 0;
        for (const json::value& m : messages) results = m.at("role") == "user" ? 0 : results + (m.at("role") == "tool");
        std::string sse = chunk(R"({"role":"assistant","content":""})", "null");
        if (body.contains("tools") && results < 2) {
            // Arguments that need escaping, in three pieces; the name one of the request's tools.
            const std::string name(body.at("tools").at(static_cast<std::size_t>(index % 3)).at("function").at("name").as_string());
            char call_id[32];
            std::snprintf(call_id, sizeof call_id, "call_%016llx", static_cast<unsigned long long>(index * 7919 + 1));
            sse += chunk(std::string(R"({"tool_calls":[{"index":0,"id":")") + call_id + R"(","type":"function","function":{"name":")" +
                             name + R"(","arguments":""}}]})", "null");
            for (const char* piece : {R"({\"query\": \"st)", R"(\u00f6ne \\\"\", )", R"(\"step\": )" })
                sse += chunk(std::string(R"({"tool_calls":[{"index":0,"function":{"arguments":")") + piece + R"("}}]})", "null");
            sse += chunk(R"({"tool_calls":[{"index":0,"function":{"arguments":")" + std::to_string(results) + R"(}"}}]})",
                         "\"tool_calls\"");
        } else {
            sse += chunk(R"({"content":"all"})", "null") + chunk(R"({"content":" done"})", "\"stop\"");
        }
        sse += "data: [DONE]\n\n";
        return c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n") &&
               c.send_chunk(sse) && c.send("0\r\n\r\n");
    }
};

}  // namespace

// An agent's sessions: each tool call the model streams goes back, after the tool's latency,
// exactly as it streamed, with the tool's result and the whole history before it and no new
// user message, until the model answers in text; then the next user turn. Against a scripted
// server (tool_chain_server: vLLM's pieces, and what the tools cost), then the simulator.
BOOST_AUTO_TEST_CASE(an_agents_tool_calls_go_back_with_their_results) {
    temp_dir dir;
    tool_chain_server model;
    const int rc = run_openloop({"--target", model.server.url(), "--model", "m", "--tokenizer", "words", "--rate", "20",
                                 "--num-requests", "3", "--turns", "2", "--tools", "3", "--tool-schema-len", "8",
                                 "--tool-latency", "30ms", "--tool-result-len", "5", "--think-time", "10ms",
                                 "--input-len", "12", "--output-len", "6", "--seed", "4", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    // Each turn is a call, a call and the answer: three requests, at indexes session * 18 + 0..5
    // (two turns of one request and up to eight tool steps each).
    std::lock_guard lock(model.mutex);
    BOOST_TEST_REQUIRE(model.bodies.size() == 18u);
    for (const auto& [index, body] : model.bodies) {
        const std::int64_t place = index % 18;
        BOOST_TEST_CONTEXT("request " << index) {
            BOOST_TEST_REQUIRE(place < 6);
            BOOST_TEST(body.at("tools").as_array().size() == 3u);
            BOOST_TEST(body.at("tool_choice") == "auto");
            if (place == 0) {
                BOOST_TEST(body.at("messages").as_array().size() == 1u);
                continue;
            }
            const json::object& before = model.bodies.at(index - 1);
            const json::array& sent = body.at("messages").as_array();
            json::array expected = before.at("messages").as_array();
            if (place % 3 != 0) {
                // What the server streamed, whole, and the tool's result for it.
                const std::string name(before.at("tools").at(static_cast<std::size_t>((index - 1) % 3)).at("function").at("name").as_string());
                char call_id[32];
                std::snprintf(call_id, sizeof call_id, "call_%016llx", static_cast<unsigned long long>((index - 1) * 7919 + 1));
                const std::string arguments = "{\"query\": \"st\xc3\xb6ne \\\"\", \"step\": " + std::to_string(place % 3 - 1) + "}";
                BOOST_TEST(json::parse(arguments).at("step").as_int64() == place % 3 - 1);
                expected.push_back(json::object{
                    {"role", "assistant"},
                    {"content", nullptr},
                    {"tool_calls", json::array{json::object{{"id", call_id},
                                                            {"type", "function"},
                                                            {"function", json::object{{"name", name}, {"arguments", arguments}}}}}}});
                BOOST_TEST_REQUIRE(sent.size() == expected.size() + 1);
                BOOST_TEST(json::array(sent.begin(), sent.end() - 1) == expected);
                const json::object& result = sent.back().as_object();
                BOOST_TEST(result.size() == 3u);
                BOOST_TEST(result.at("role") == "tool");
                BOOST_TEST(result.at("tool_call_id") == call_id);
                BOOST_TEST(std::count(result.at("content").as_string().begin(), result.at("content").as_string().end(), ' ') == 4);
            } else {
                expected.push_back(json::object{{"role", "assistant"}, {"content", "all done"}});
                BOOST_TEST_REQUIRE(sent.size() == expected.size() + 1);
                BOOST_TEST(json::array(sent.begin(), sent.end() - 1) == expected);
                BOOST_TEST(sent.back().at("role") == "user");
            }
        }
    }
    // Each request's intended prompt: the one before it, its answer at the length asked (a call's
    // arguments and the function's name, one word) and the new message.
    BOOST_TEST(slurp(dir.file("run.log")).find("--tools 3: 40 prompt tokens on this server") != std::string::npos);
    std::map<std::int64_t, json::object> logged;
    for (auto& r : read_jsonl(dir.file("out") + "/requests.jsonl")) {
        BOOST_TEST(r.at("status").as_string() == "ok");
        logged[num(r.at("index"))] = std::move(r);
    }
    BOOST_TEST_REQUIRE(logged.size() == 18u);
    for (const auto& [index, r] : logged) {
        const std::int64_t place = index % 18;
        BOOST_TEST_CONTEXT("request " << index) {
            BOOST_TEST(num(r.at("turn")) == place + 1);  // the request's place in its session
            if (place == 0) {
                BOOST_TEST(num(r.at("input_tokens")) == 40 + 12);  // the tools, as the server counted them, and the task
                continue;
            }
            const json::object& before = logged.at(index - 1);
            BOOST_TEST(num(r.at("input_tokens")) == num(before.at("input_tokens")) + num(before.at("max_tokens")) +
                                                        (place % 3 != 0 ? 1 + 5 : 12));
        }
    }
    const json::object summary = read_json(dir.file("out") + "/summary.json");
    BOOST_TEST(summary.at("sessions").at("completed").as_int64() == 3);
    BOOST_TEST(summary.at("sessions").at("turns_completed").as_int64() == 6);

    // The same loop against the simulator (--tool-chain 2), from its log of what each request
    // carried and what it streamed back.
    const std::string sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "h100-8b", "--tool-chain", "2", "--log", sim_log, "--log-content"});
    const int sim_rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "2", "--turns", "2",
                                     "--tools", "3", "--tool-latency", "20ms", "--tool-result-len", "5", "--think-time",
                                     "10ms", "--input-len", "12", "--output-len", "8", "--ignore-eos", "--seed", "4",
                                     "--out", dir.file("sim")},
                                    dir.file("sim.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(sim_rc == 0, slurp(dir.file("sim.log")));
    std::map<std::int64_t, json::object> seen;
    for (auto& line : read_jsonl(sim_log)) {
        const std::string id(line.at("request_id").as_string());
        // The setup's probes of what the tools cost carry no request id of the run's.
        if (id.rfind("openloop-", 0) == 0) seen[std::stoll(id.substr(9))] = std::move(line);
    }
    BOOST_TEST_REQUIRE(seen.size() == 12u);
    for (const auto& [index, now] : seen) {
        const std::int64_t place = index % 18;
        BOOST_TEST_CONTEXT("sim request " << index) {
            BOOST_TEST_REQUIRE(place < 6);
            BOOST_TEST(now.at("tool_call").as_bool() == (place % 3 != 2));
            if (place == 0) continue;
            const json::object& before = seen.at(index - 1);
            const json::array& sent = now.at("messages").as_array();
            json::array expected = before.at("messages").as_array();
            if (before.at("tool_call").as_bool()) {
                expected.push_back(json::object{{"role", "assistant"}, {"content", nullptr}, {"tool_calls", before.at("tool_calls")}});
            } else {
                expected.push_back(json::object{{"role", "assistant"}, {"content", before.at("output")}});
            }
            BOOST_TEST_REQUIRE(sent.size() == expected.size() + 1);
            BOOST_TEST(json::array(sent.begin(), sent.end() - 1) == expected);
            if (before.at("tool_call").as_bool()) {
                BOOST_TEST(sent.back().at("role") == "tool");
                BOOST_TEST(sent.back().at("tool_call_id") == before.at("tool_calls").at(0).at("id"));
            } else {
                BOOST_TEST(sent.back().at("role") == "user");
            }
        }
    }
}

// An answer that calls two tools at once (tool_calls index 0 and 1, as the simulator's
// --parallel-tool-calls 2 streams them) goes back whole, each call answered by a tool message
// naming its id, as a real agent answers every call; and every request's intended input is
// what the server counted of what was sent.
BOOST_AUTO_TEST_CASE(parallel_tool_calls_are_each_answered) {
    temp_dir dir;
    const std::string sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--tool-chain", "1", "--parallel-tool-calls",
                                                        "2", "--log", sim_log, "--log-content"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "20", "--num-requests", "2", "--turns", "2", "--tools", "3",
                                 "--tool-latency", "10ms", "--tool-result-len", "5", "--think-time", "10ms",
                                 "--input-len", "12", "--output-len", "8", "--ignore-eos", "--seed", "4", "--out",
                                 dir.file("out")},
                                dir.file("run.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const auto server = sim_log_by_id(sim_log);
    int answered_pairs = 0;
    for (const auto& r : read_jsonl(dir.file("out/requests.jsonl"))) {
        const std::string id(r.at("id").as_string());
        BOOST_TEST_CONTEXT(id) {
            BOOST_TEST_REQUIRE(r.at("status") == "ok");
            const json::object& seen = server.at(id);
            // What the intended input counted is what the server read.
            BOOST_TEST(num(r.at("input_tokens")) == num(seen.at("prompt_tokens")));
            const json::array& sent = seen.at("messages").as_array();
            if (sent.back().at("role") != "tool") continue;
            // The answer before, both of its calls, then a result for each, in order.
            BOOST_TEST_REQUIRE(sent.size() >= 4u);
            const json::object& asked = sent[sent.size() - 3].as_object();
            BOOST_TEST(asked.at("role") == "assistant");
            const json::array& calls = asked.at("tool_calls").as_array();
            BOOST_TEST_REQUIRE(calls.size() == 2u);
            BOOST_TEST(calls[0].at("id") != calls[1].at("id"));
            // Exactly as the step before streamed them.
            const std::string before = "openloop-" + std::to_string(num(r.at("index")) - 1);
            BOOST_TEST(seen.at("messages").as_array().size() > server.at(before).at("messages").as_array().size());
            BOOST_TEST(json::value(calls) == server.at(before).at("tool_calls"));
            for (std::size_t i = 0; i < 2; ++i) {
                BOOST_TEST(sent[sent.size() - 2 + i].at("role") == "tool");
                BOOST_TEST(sent[sent.size() - 2 + i].at("tool_call_id") == calls[i].at("id"));
            }
            ++answered_pairs;
        }
    }
    BOOST_TEST(answered_pairs == 4);  // 2 sessions x 2 turns, each turn's call answered once
}

// A run killed before its summary, and runs merged, get their session figures back from
// sessions.jsonl (how each session ended) and requests.jsonl (each turn): the same, to the
// nanosecond, as the run's own, failed sessions (a 500 cuts a conversation short) included.
BOOST_AUTO_TEST_CASE(report_and_merge_rebuild_the_session_figures) {
    temp_dir dir;
    auto sim = openloop::start_sim(openloop_test::bin, {"--preset", "h100-8b", "--fault-500", "0.1", "--seed", "2"});
    const int rc = run_openloop({"--target", sim.url, "--rate", "8", "--num-requests", "12", "--turns", "uniform:2:5",
                                 "--think-time", "10ms", "--input-len", "100", "--output-len", "8", "--ignore-eos",
                                 "--seed", "4", "--max-error-rate", "100%", "--out", dir.file("out")},
                                dir.file("run.log"));
    sim.process.stop();
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    const json::object live = read_json(dir.file("out/summary.json"));
    const json::object& sessions = live.at("sessions").as_object();
    BOOST_TEST(sessions.at("started").as_int64() == 12);
    // The simulator's faults go by arrival number: with seed 2 the 12th fails, and at least 12 arrive.
    BOOST_TEST(sessions.at("failed").as_int64() > 0);
    BOOST_TEST(read_jsonl(dir.file("out/sessions.jsonl")).size() == 12u);

    const int merged = openloop_cli({"merge", dir.file("out"), "--out", dir.file("merged")}, dir.file("merge.log"));
    BOOST_TEST_REQUIRE(merged == 0, slurp(dir.file("merge.log")));
    BOOST_TEST(read_json(dir.file("merged/summary.json")).at("sessions") == live.at("sessions"));

    std::filesystem::remove(dir.file("out/summary.json"));
    const int reported = openloop_cli({"report", dir.file("out")}, dir.file("report.log"));
    BOOST_TEST_REQUIRE(reported == 0, slurp(dir.file("report.log")));
    BOOST_TEST(read_json(dir.file("out/summary.json")).at("sessions") == live.at("sessions"));
}

// --system-prompt from a scenario file: every request of every session, user turns and an
// agent's tool results alike, starts with the one system message, which the conversation
// holds once: each request's intended input is the server's count (the system prompt's
// words, which every built message's first word carries, counted once). Against a real
// chat template: it_tokenizer's a_system_prompt_counts_in_the_templates_share.
BOOST_AUTO_TEST_CASE(a_system_prompt_leads_every_turn_and_counts_once) {
    temp_dir dir;
    const std::string system = "You are a terse assistant for a bicycle shop: answer in one sentence and name the part.";
    std::ofstream(dir.file("system.txt")) << system;
    std::ofstream(dir.file("agent.ini")) << "turns = 3\nthink-time = 10ms\ninput-len = uniform:30:120\noutput-len = 8\n"
                                            "ignore-eos = true\ntools = 2\nsystem-prompt = @"
                                         << dir.file("system.txt") << "\n";
    const std::string sim_log = dir.file("sim.jsonl");
    auto sim = openloop::start_sim(openloop_test::bin,
                                   {"--preset", "firehose", "--tool-chain", "1", "--log", sim_log, "--log-content"});
    const int rc = run_openloop({dir.file("agent.ini"), "--target", sim.url, "--rate", "20", "--num-requests", "4",
                                 "--tokenizer-cache", "off", "--out", dir.file("out")},
                                dir.file("run.log"));
    BOOST_TEST_REQUIRE(rc == 0, slurp(dir.file("run.log")));
    sim.process.stop();
    std::size_t requests = 0;
    for (const auto& r : read_jsonl(dir.file("out") + "/requests.jsonl")) {
        ++requests;
        BOOST_TEST(num(r.at("prompt_tokens")) == num(r.at("input_tokens")), "request " << num(r.at("index")));
    }
    BOOST_TEST(requests == 4u * 3 * 2);  // each user turn, then its tool call's result
    std::size_t logged = 0;
    for (const auto& line : read_jsonl(sim_log)) {
        if (line.at("request_id").as_string().find("openloop-") != 0) continue;  // the calibration's probes
        ++logged;
        const json::array& messages = line.at("messages").as_array();
        BOOST_TEST_REQUIRE(messages.size() >= 2u);
        BOOST_TEST(messages[0].at("role").as_string() == "system");
        BOOST_TEST(messages[0].at("content").as_string() == system);
        BOOST_TEST(std::count_if(messages.begin(), messages.end(),
                                 [](const json::value& m) { return m.at("role").as_string() == "system"; }) == 1);
    }
    BOOST_TEST(logged == requests);
}

BOOST_AUTO_TEST_SUITE_END()
