#include <boost/test/unit_test.hpp>

#include "openloop/cli/report_command.hpp"
#include "openloop/cli/run_command.hpp"
#include "openloop/cli/sim_command.hpp"
#include "openloop/cli/soak_command.hpp"
#include "openloop/cli/sweep_command.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/load/tokenizer_choice.hpp"
#include "openloop/wire/client.hpp"
#include "test_paths.hpp"

#include <boost/json.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>

BOOST_AUTO_TEST_SUITE(unit_cli)

using namespace openloop;

namespace {

struct scenario_file {
    std::string path;
    explicit scenario_file(const std::string& text) {
        path = (std::filesystem::temp_directory_path() / ("openloop-cli-test-" + std::to_string(::getpid()) + ".ini")).string();
        std::ofstream(path) << text;
    }
    ~scenario_file() { std::remove(path.c_str()); }
};

}  // namespace

// Flags read values through base/quantity: the same spelling means the same
// wherever it is written, and a bad one is a usage error naming the flag.
BOOST_AUTO_TEST_CASE(flag_values_read_alike) {
    const auto run = parse_run_command({"--out", "-", "--duration", "2m", "--connect-timeout", "250ms", "--grace", "1.5",
                                        "--lag-bound", "500us", "--keep-alive-idle", "3 s"});
    BOOST_TEST(run.options.duration_s == 120.0);
    BOOST_TEST(run.options.connect_timeout.count() == 250);
    BOOST_TEST(run.options.grace_s == 1.5);  // a bare number is seconds
    BOOST_TEST(run.options.lag_bound_ms == 0.5);
    BOOST_TEST(run.options.keep_alive_idle.count() == 3000);
    BOOST_TEST(parse_run_command({"--max-error-rate", "0.5 %"}).options.max_error_rate == 0.005);
    BOOST_TEST(parse_run_command({"--rate-profile", "2:1m,2-4:30"}).options.arrival.profile.at(0).duration_s == 60.0);

    for (const std::vector<std::string>& bad : {std::vector<std::string>{"--duration", "soon"},
                                               {"--timeout", "-1s"},
                                               {"--lag-bound", "5days"},
                                               {"--warmup", "99999999999999999999"},
                                               {"--concurrency", "two"},
                                               {"--goodput", "ttft=fast"}}) {
        BOOST_TEST_CONTEXT(bad[0] << " " << bad[1]) {
            try {
                parse_run_command(bad);
                BOOST_FAIL("no error");
            } catch (const usage_error& e) {
                const std::string message = e.what();
                BOOST_TEST(message.find(bad[0]) != std::string::npos, message);
                BOOST_TEST(message.find(bad[1].substr(bad[1].find('=') + 1)) != std::string::npos, message);
            }
        }
    }
    BOOST_CHECK_THROW(parse_sweep_command({"--cooldown", "later"}), usage_error);
    BOOST_CHECK_THROW(parse_sim_command({"--keep-alive-timeout", "never"}), usage_error);
}

// --goodput has always taken a bare number as seconds; --slo now reads it the same way.
BOOST_AUTO_TEST_CASE(goodput_and_slo_limits_mean_the_same) {
    const auto run = parse_run_command({"--goodput", "ttft=0.5", "--out", "-"});
    const auto sweep = parse_sweep_command({"--slo", "ttft_p99=0.5", "--out", "-"});
    BOOST_TEST(run.options.slo.ttft_ms == 500.0);
    BOOST_TEST(sweep.options.slos.at(0).limit == 500.0);
    BOOST_TEST(sweep.options.base.slo.ttft_ms == run.options.slo.ttft_ms);
    for (const std::string limit : {"500ms", "0.5s", "500000us"}) {
        BOOST_TEST(parse_run_command({"--goodput", "ttft=" + limit}).options.slo.ttft_ms == 500.0);
        BOOST_TEST(parse_sweep_command({"--slo", "ttft_p99=" + limit}).options.slos.at(0).limit == 500.0);
    }
    BOOST_TEST(parse_run_command({"--help"}).help_text.find("A bare number is seconds everywhere") != std::string::npos);
    BOOST_TEST(parse_sweep_command({"--help"}).help_text.find("A bare number is seconds everywhere") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(run_defaults_bound_the_run) {
    const auto cmd = parse_run_command({"--out", "-"});
    BOOST_TEST(cmd.target == "sim:cpu-small");
    BOOST_TEST(cmd.options.duration_s == 60.0);  // no run is endless
    BOOST_TEST(cmd.options.num_requests == 0u);
    BOOST_TEST((cmd.options.endpoint == endpoint_kind::chat));
    BOOST_TEST(cmd.options.temperature == 0.0);
    BOOST_TEST(cmd.options.continuous_usage);
    BOOST_TEST(cmd.options.out_dir.empty());
    const auto counted = parse_run_command({"--num-requests", "10"});
    BOOST_TEST(counted.options.duration_s == 0.0);
    BOOST_TEST(counted.options.num_requests == 10u);
    BOOST_TEST(counted.options.out_dir.rfind("results/run-", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(warmup_is_a_time_or_a_count) {
    BOOST_TEST(parse_run_command({"--warmup", "20"}).options.warmup_requests == 20u);
    BOOST_TEST(parse_run_command({"--warmup", "5s"}).options.warmup_s == 5.0);
}

BOOST_AUTO_TEST_CASE(command_line_wins_over_the_scenario) {
    scenario_file f("rate = 7\narrival = gamma\nburstiness = 0.5\ninput-len = 64\nignore-eos = true\n");
    const auto cmd = parse_run_command({f.path, "--rate", "3"});
    BOOST_TEST(cmd.options.arrival.rate == 3.0);
    BOOST_TEST((cmd.options.arrival.kind == arrival_kind::gamma));
    BOOST_TEST(cmd.options.arrival.burstiness == 0.5);
    BOOST_TEST(cmd.options.workload.input_len.describe() == "64");
    BOOST_TEST(cmd.options.ignore_eos);
}

BOOST_AUTO_TEST_CASE(scenario_errors_name_the_file) {
    scenario_file f("rate = 7\nnot-an-option = 1\n");
    try {
        parse_run_command({f.path});
        BOOST_FAIL("no error");
    } catch (const usage_error& e) {
        BOOST_TEST(std::string(e.what()).find(f.path) != std::string::npos, e.what());
    }
    BOOST_CHECK_THROW(parse_run_command({"/nonexistent/scenario.ini"}), usage_error);
}

// Program_options substitutes placeholders in its messages until none is
// left, so an unknown option named after one never returned (found by fuzzing).
BOOST_AUTO_TEST_CASE(placeholder_text_is_refused_not_looped_on) {
    scenario_file f("rate = 7\noption '%canonical_option%' = 1\n");
    try {
        parse_run_command({f.path});
        BOOST_FAIL("no error");
    } catch (const usage_error& e) {
        BOOST_TEST(std::string(e.what()).find(f.path + ":2") != std::string::npos, e.what());
    }
    BOOST_CHECK_THROW(parse_run_command({"--no-such-%value%", "1"}), usage_error);
    BOOST_CHECK_THROW(parse_sweep_command({"--rates", "%prefix%"}), usage_error);
    BOOST_CHECK_THROW(report_main({"--x%canonical_option%"}), usage_error);
}

BOOST_AUTO_TEST_CASE(every_shipped_scenario_parses) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(openloop_test::source_dir) + "/scenarios")) {
        if (entry.path().extension() != ".ini") continue;
        // soak*.ini are soak scenarios (--interval, --warmup-windows); a soak always writes its windows.
        if (entry.path().filename().string().rfind("soak", 0) == 0) {
            BOOST_CHECK_NO_THROW(parse_soak_command({entry.path().string(), "--out", "/tmp/openloop-scenario-check"}));
        } else {
            BOOST_CHECK_NO_THROW(parse_run_command({entry.path().string(), "--out", "-"}));
        }
    }
}

BOOST_AUTO_TEST_CASE(secret_headers_are_redacted_in_the_config) {
    const auto cmd = parse_run_command({"--header", "Authorization: Bearer sk-verysecret", "--header", "X-Api-Key: abc123",
                                        "--header", "X-Tenant: blue"});
    BOOST_TEST(cmd.options.headers.size() == 3u);
    BOOST_TEST(cmd.options.headers[0].second == "Bearer sk-verysecret");  // still sent
    const std::string config = boost::json::serialize(cmd.options.config);
    BOOST_TEST(config.find("sk-verysecret") == std::string::npos, config);
    BOOST_TEST(config.find("abc123") == std::string::npos, config);
    BOOST_TEST(config.find("X-Tenant: blue") != std::string::npos, config);
}

BOOST_AUTO_TEST_CASE(bad_run_flags_are_rejected) {
    BOOST_CHECK_THROW(parse_run_command({"--rate", "0"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--endpoint", "anthropic"}), usage_error);
    BOOST_CHECK_NO_THROW(parse_run_command({"--endpoint", "responses", "--no-stream"}));
    BOOST_CHECK_THROW(parse_run_command({"--endpoint", "responses", "--no-continuous-usage"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--endpoint", "embeddings", "--ignore-eos"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--no-stream", "--goodput", "tpot=50ms"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--arrival", "weibull"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--header", "no-colon"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--goodput", "ttft"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--goodput", "latency=1s"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--concurrency", "0"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--prompts", "a.jsonl", "--sharegpt", "b.json"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--no-such-flag"}), usage_error);
}

// Against real servers: connections, token lengths and failures.
BOOST_AUTO_TEST_CASE(real_server_flags) {
    const auto d = parse_run_command({"--out", "-"});
    BOOST_TEST(d.options.keep_alive_idle.count() == 4000);  // under the 5 s uvicorn and cpp-httplib close after
    BOOST_TEST(d.options.max_error_rate == 0.01);
    BOOST_TEST(int(d.options.tokenizer.type) == int(tokenizer_choice::kind::automatic));
    const auto c = parse_run_command({"--out", "-", "--keep-alive-idle", "0", "--max-error-rate", "5%", "--tokenizer",
                                      "ids", "--vocab-size", "128256", "--spare-connections", "0", "--tokenizer-cache",
                                      "off"});
    BOOST_TEST(c.options.keep_alive_idle.count() == 0);
    BOOST_TEST(c.options.max_error_rate == 0.05);
    BOOST_TEST(int(c.options.tokenizer.type) == int(tokenizer_choice::kind::ids));
    BOOST_TEST(c.options.vocab_size == 128256);
    BOOST_TEST(c.options.spare_connections == 0u);
    BOOST_TEST(c.options.tokenizer_cache.empty());
    BOOST_TEST(parse_run_command({"--max-error-rate", "0.2"}).options.max_error_rate == 0.2);
    BOOST_CHECK_THROW(parse_run_command({"--max-error-rate", "150%"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--max-error-rate", "lots"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--tokenizer", "tiktoken"}), usage_error);
    BOOST_CHECK_THROW(parse_run_command({"--vocab-size", "-1"}), usage_error);

    const auto sim = parse_sim_command({"--keep-alive-timeout", "2s", "--keep-alive-max-requests", "100", "--quirk",
                                        "close-stale", "--quirk", "close-after-completion"});
    BOOST_TEST(sim.config.keep_alive_timeout.count() == 2000);
    BOOST_TEST(sim.config.keep_alive_max_requests == 100);
    BOOST_TEST(sim.config.quirks.close_stale);
    BOOST_TEST(sim.config.quirks.close_after_completion);
    BOOST_CHECK_THROW(parse_sim_command({"--tokenizer", "bpe"}), usage_error);
}

BOOST_AUTO_TEST_CASE(goodput_slos) {
    const auto cmd = parse_run_command({"--goodput", "ttft=500ms", "--goodput", "tpot=0.05", "--goodput", "e2e=10s"});
    BOOST_TEST(cmd.options.slo.ttft_ms == 500.0);
    BOOST_TEST(cmd.options.slo.tpot_ms == 50.0);
    BOOST_TEST(cmd.options.slo.e2e_ms == 10000.0);
    BOOST_TEST(cmd.options.slo.itl_ms < 0);
}

BOOST_AUTO_TEST_CASE(sim_options_override_the_preset) {
    const auto cmd = parse_sim_command({"--preset", "cpu-small", "--max-num-seqs", "3", "--step-base-ms", "5",
                                        "--fault-500", "0.25", "--quirk", "no-done"});
    BOOST_TEST(cmd.config.model.name == "cpu-small");
    BOOST_TEST(cmd.config.model.max_num_seqs == 3);
    BOOST_TEST(cmd.config.model.step_base_ms == 5.0);
    BOOST_TEST(cmd.config.model.decode_seq_ms == find_preset("cpu-small")->decode_seq_ms);
    BOOST_TEST(cmd.config.faults.http_500 == 0.25);
    BOOST_TEST(cmd.config.quirks.no_done);
    BOOST_TEST(cmd.config.host == "127.0.0.1");  // loopback unless told otherwise
    BOOST_CHECK_THROW(parse_sim_command({"--preset", "a100"}), usage_error);
    BOOST_CHECK_THROW(parse_sim_command({"--fault-429", "1.5"}), usage_error);
    BOOST_CHECK_THROW(parse_sim_command({"--fault-429", "0.6", "--fault-500", "0.6"}), usage_error);
    BOOST_CHECK_THROW(parse_sim_command({"--quirk", "telepathy"}), usage_error);
    BOOST_CHECK_THROW(parse_sim_command({"--max-num-seqs", "0"}), usage_error);
}

BOOST_AUTO_TEST_CASE(target_urls) {
    auto t = parse_target_url("http://127.0.0.1:8000");
    BOOST_TEST(!t.tls);
    BOOST_TEST(t.host == "127.0.0.1");
    BOOST_TEST(t.port == "8000");
    BOOST_TEST(t.base_path == "");
    BOOST_TEST(t.host_header == "127.0.0.1:8000");
    t = parse_target_url("https://api.example.com/v1/");
    BOOST_TEST(t.tls);
    BOOST_TEST(t.port == "443");
    BOOST_TEST(t.base_path == "/v1");
    BOOST_TEST(t.host_header == "api.example.com");
    t = parse_target_url("http://[::1]:9000/openai/v1");
    BOOST_TEST(t.host == "::1");
    BOOST_TEST(t.host_header == "[::1]:9000");
    BOOST_TEST(t.base_path == "/openai/v1");
    BOOST_TEST(t.display() == "http://[::1]:9000/openai/v1");
    BOOST_CHECK_THROW(parse_target_url("127.0.0.1:8000"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_target_url("http://:80"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_target_url("http://h:99999"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_target_url("http://user:pw@h/v1"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_target_url("http://h/v1?x=1"), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(prepared_request_bytes) {
    client_options o;
    o.target = parse_target_url("http://127.0.0.1:8000");
    o.path = "/v1/chat/completions";
    o.headers = {{"X-Tenant", "blue"}};
    const std::string body = R"({"model":"m"})";
    std::string bytes = "what a request before left";
    const std::size_t head = write_http_request(bytes, o, "openloop-", 7, body);
    BOOST_TEST(head == bytes.size() - body.size());
    BOOST_TEST(bytes.rfind("POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n", 0) == 0u);
    BOOST_TEST(bytes.find("\r\nx-request-id: openloop-7\r\n") != std::string::npos);
    BOOST_TEST(bytes.find("\r\nX-Tenant: blue\r\n") != std::string::npos);
    BOOST_TEST(bytes.find("\r\nContent-Length: 13\r\n\r\n" + body) != std::string::npos);
    BOOST_TEST(bytes.size() == bytes.find("\r\n\r\n") + 4 + body.size());
}

// Routing headers: a traceparent whose trace id begins with the request index, and a
// session's id on each of its turns.
BOOST_AUTO_TEST_CASE(requests_carry_a_traceparent_and_a_session_id) {
    client_options o;
    o.target = parse_target_url("http://127.0.0.1:8000");
    o.path = "/v1/chat/completions";
    o.trace_key = 42;
    std::string bytes;
    write_http_request(bytes, o, "run-", 163, "{}");
    const auto at = bytes.find("\r\ntraceparent: 00-");
    BOOST_TEST_REQUIRE(at != std::string::npos);
    const std::string tp = bytes.substr(at + 15, 55);
    BOOST_TEST(tp.substr(0, 19) == "00-00000000000000a3");  // 163 in hex
    BOOST_TEST(tp.substr(35, 1) == "-");
    BOOST_TEST(tp.substr(52) == "-01");
    BOOST_TEST(tp.substr(3, 49).find_first_not_of("0123456789abcdef-") == std::string::npos);
    BOOST_TEST(bytes.find("X-Session-ID") == std::string::npos);
    std::string again, other_run, session;
    write_http_request(again, o, "run-", 163, "{}");
    BOOST_TEST(again == bytes);  // reproducible
    o.trace_key = 43;
    write_http_request(other_run, o, "run-", 163, "{}");
    BOOST_TEST(other_run.substr(at + 15, 55) != tp);  // the run is in the hash half
    BOOST_TEST(other_run.substr(at + 15, 19) == tp.substr(0, 19));
    write_http_request(session, o, "run-", 165, "{}", 41);
    BOOST_TEST(session.find("\r\nX-Session-ID: run-session-41\r\n") != std::string::npos);
    // Index 0 with a hash of zeros would be the invalid all-zero trace id: never all zeros.
    std::string first;
    write_http_request(first, o, "run-", 0, "{}");
    BOOST_TEST(first.find("traceparent: 00-00000000000000000000000000000000-") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(sweep_slos_define_goodput_and_stage_length) {
    const auto cmd = parse_sweep_command({"--slo", "ttft_p99=1s", "--slo", "e2e_p95=10s", "--slo", "error_rate=1%",
                                          "--rates", "1,2,4", "--out", "-"});
    BOOST_TEST(cmd.options.slos.size() == 3u);
    BOOST_TEST(cmd.options.base.slo.ttft_ms == 1000.0);
    BOOST_TEST(cmd.options.base.slo.e2e_ms == 10000.0);
    BOOST_TEST(cmd.options.base.slo.tpot_ms < 0);
    BOOST_TEST(!cmd.options.rates.automatic);
    BOOST_TEST(cmd.options.rates.rates.size() == 3u);
    BOOST_TEST(cmd.options.warmup_s == 5.0);  // a stage always warms up
    BOOST_TEST(samples_for_percentile(99) == 368u);
    BOOST_CHECK_THROW(parse_sweep_command({"--rates", "4,2"}), usage_error);
    BOOST_CHECK_THROW(parse_sweep_command({"--slo", "ttft_p99"}), usage_error);
    BOOST_CHECK_THROW(parse_sweep_command({"--factor", "1"}), usage_error);
    const auto ladder = parse_sweep_command({"--concurrency", "1,2,4,8"});
    BOOST_TEST(ladder.options.concurrency.size() == 4u);
}

// Flags whose values later layers use are parsed here, once, into typed values: a bad one is a
// usage error from cli/ (exit 2), never an exception from the run.
BOOST_AUTO_TEST_CASE(values_are_typed_once_in_cli) {
    const auto cmd = parse_run_command({"--out", "-", "--input-len", "uniform:10:20", "--output-len", "7",
                                        "--endpoint", "completions", "--extra-body", R"({"top_p": 0.9})"});
    BOOST_TEST((cmd.options.workload.input_len.type() == length_dist::kind::uniform));
    BOOST_TEST(cmd.options.workload.input_len.max() == 20);
    BOOST_TEST(cmd.options.workload.output_len.describe() == "7");
    BOOST_TEST((cmd.options.endpoint == endpoint_kind::completions));
    BOOST_TEST(cmd.options.extra_body.at("top_p") == 0.9);
    const auto traced = parse_run_command({"--out", "-", "--trace", "t.csv", "--trace-columns", "time=t,input=i,output=o"});
    BOOST_TEST_REQUIRE(traced.options.workload.trace_mapping.has_value());
    BOOST_TEST(traced.options.workload.trace_mapping->time.at(0) == "t");
    BOOST_TEST((parse_run_command({"--out", "-", "--trace", "t.csv", "--trace-format", "azure"}).options.workload.trace_kind ==
                trace_format::azure));

    const auto message = [](const std::vector<std::string>& args) -> std::string {
        try {
            parse_run_command(args);
        } catch (const usage_error& e) {
            return e.what();
        }
        return "no error";
    };
    BOOST_TEST(message({"--output-len", "uniform:0:4"}).find("\"uniform:0:4\" for --output-len") != std::string::npos);
    BOOST_TEST(message({"--trace", "t.csv", "--trace-format", "parquet"}).find("--trace-format") != std::string::npos);
    BOOST_TEST(message({"--trace", "t.csv", "--trace-columns", "time=t"}).find("--trace-columns") != std::string::npos);
    BOOST_TEST(message({"--extra-body", "[1]"}) == "--extra-body must be a JSON object, e.g. '{\"top_p\": 0.9}'");
    BOOST_TEST(message({"--extra-body", "{"}).find("--extra-body is not JSON") == 0u);
    BOOST_TEST(message({"--extra-body", R"({"note":"@@openloop-prompt@@"})"}) ==
               "--extra-body may not contain \"@@openloop-\": openloop marks its own fields with it");
    // The rules between the workload's flags are cli/'s too, in load/'s words.
    BOOST_TEST(message({"--prefix-len", "512"}).find("--prefix-len (512) must be less than the largest --input-len (512)") ==
               0u);
    BOOST_TEST(message({"--rag-docs", "10", "--prefix-len", "8"}).find("--rag-docs has its own shared parts") == 0u);
    BOOST_TEST(message({"--endpoint", "anthropic"}) ==
               "--endpoint must be chat, completions, responses, embeddings or transcriptions, got 'anthropic'");
}

namespace {

// The usage error a command line gets, or "" when it parses.
std::string run_error(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"--out", "-"};
    all.insert(all.end(), args.begin(), args.end());
    try {
        parse_run_command(all);
        return "";
    } catch (const usage_error& e) {
        return e.what();
    }
}

bool says(const std::string& error, const std::string& what) {
    BOOST_TEST_MESSAGE(error);
    return error.find(what) != std::string::npos;
}

}  // namespace

BOOST_AUTO_TEST_CASE(agent_flags_are_typed_and_their_errors_name_them) {
    const auto run = parse_run_command({"--out", "-", "--turns", "3", "--tools", "4", "--tool-choice", "tool_3",
                                        "--tool-latency", "uniform:100ms:300ms", "--tool-result-len", "32",
                                        "--max-tool-steps", "2", "--tool-schema-len", "16", "--reasoning-effort", "low",
                                        "--response-format", "json_object"});
    const tool_config& t = run.options.tools;
    BOOST_TEST(t.count == 4);
    BOOST_TEST(t.choice == "tool_3");
    BOOST_TEST(t.latency.describe() == "uniform:0.1s:0.3s");
    BOOST_TEST(t.result_len.describe() == "32");
    BOOST_TEST(t.max_steps == 2);
    BOOST_TEST(t.schema_len == 16);
    // Each user turn may take two tool steps: three requests of index of their own.
    BOOST_TEST(run.options.sessions->stride() == 9);
    BOOST_TEST(run.options.reasoning_effort == "low");
    BOOST_TEST(boost::json::serialize(run.options.response_format) == R"({"type":"json_object"})");
    BOOST_TEST(run.options.config.at("tools") == 4);  // recorded as every flag is
    BOOST_TEST(parse_run_command({"--out", "-", "--turns", "3"}).options.sessions->stride() == 3);

    BOOST_TEST(says(run_error({"--tools", "2", "--endpoint", "completions"}), "--tools needs --endpoint chat"));
    BOOST_TEST(says(run_error({"--tools", "-1"}), "--tools must be 0 to 1024"));
    BOOST_TEST(says(run_error({"--tool-choice", "required"}), "--tool-choice needs --tools"));
    BOOST_TEST(says(run_error({"--tools", "2", "--tool-choice", "tool_2"}), "tool_0 to tool_1"));
    BOOST_TEST(says(run_error({"--tools", "2", "--tool-choice", "tool_01"}), "--tool-choice must be"));
    BOOST_TEST(says(run_error({"--tools", "2", "--turns", "2", "--tool-latency", "soon"}), "--tool-latency soon"));
    BOOST_TEST(says(run_error({"--tools", "2", "--turns", "2", "--tool-result-len", "x"}), "--tool-result-len"));
    BOOST_TEST(says(run_error({"--tools", "2", "--turns", "2", "--max-tool-steps", "101"}), "--max-tool-steps must be 0 to 100"));
    BOOST_TEST(says(run_error({"--tools", "2", "--tool-schema-len", "0"}), "--tool-schema-len"));
    BOOST_TEST(says(run_error({"--tools", "2", "--tool-latency", "1s"}), "--tool-latency shapes a session's tool loop"));
    BOOST_TEST(says(run_error({"--reasoning-effort", "extreme"}), "--reasoning-effort must be minimal, low"));
    BOOST_TEST(says(run_error({"--reasoning-effort", "low", "--endpoint", "embeddings"}), "--reasoning-effort"));
    BOOST_TEST(says(run_error({"--response-format", "yaml"}), "--response-format must be json_object or json_schema:FILE"));
    BOOST_TEST(says(run_error({"--response-format", "json_object", "--endpoint", "responses"}), "--extra-body"));
    BOOST_TEST(says(run_error({"--response-format", "json_schema:/nonexistent/s.json"}), "/nonexistent/s.json"));
    // A schema file that is not JSON is named, with its line; one that is, is sent under its stem's name.
    scenario_file bad("{\n  \"type\": \"object\",\n  oops\n}\n");
    BOOST_TEST(says(run_error({"--response-format", "json_schema:" + bad.path}), bad.path + ":3"));
    scenario_file good(R"({"type":"object","properties":{"a":{"type":"integer"}}})");
    const auto schema = parse_run_command({"--out", "-", "--response-format", "json_schema:" + good.path});
    const auto& format = schema.options.response_format.as_object();
    BOOST_TEST(format.at("type") == "json_schema");
    BOOST_TEST(format.at("json_schema").at("schema").at("type") == "object");
    BOOST_TEST(format.at("json_schema").at("name").as_string() == std::filesystem::path(good.path).stem().string());
}

// --system-prompt: its text as given, or a file's (@FILE; it_session reads it from a scenario); chat only,
// never empty, never over 1 MiB, each refusal naming the flag and the file.
BOOST_AUTO_TEST_CASE(a_system_prompt_is_text_or_a_file) {
    BOOST_TEST(parse_run_command({"--out", "-", "--system-prompt", "Be brief."}).options.system_prompt == "Be brief.");
    scenario_file text("You answer\nin French.\n");
    BOOST_TEST(parse_run_command({"--out", "-", "--system-prompt", "@" + text.path}).options.system_prompt ==
               "You answer\nin French.\n");
    BOOST_TEST(says(run_error({"--system-prompt", "@/nonexistent/system.txt"}), "--system-prompt @/nonexistent/system.txt"));
    BOOST_TEST(says(run_error({"--system-prompt", "  \n"}), "the system prompt is empty"));
    BOOST_TEST(says(run_error({"--system-prompt", "Be brief.", "--endpoint", "embeddings"}),
                    "--system-prompt needs --endpoint chat"));
    const std::string big =
        (std::filesystem::temp_directory_path() / ("openloop-cli-big-" + std::to_string(::getpid()))).string();
    std::ofstream(big) << std::string((1u << 20) + 1, 'a');
    BOOST_TEST(says(run_error({"--system-prompt", "@" + big}), "is over 1 MiB"));
    std::remove(big.c_str());
}

BOOST_AUTO_TEST_SUITE_END()
