#include <boost/test/unit_test.hpp>

// Every bad flag, scenario line and input file, as a user meets it: the real
// binary exits 2 (bad usage) with one message naming the flag, or FILE:LINE
// and the field. No server is needed: each is refused before any request
// (the file cases point --target at a closed port, and the workload is read
// before the first connect).

#include "test_http.hpp"
#include "test_paths.hpp"

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

BOOST_AUTO_TEST_SUITE(it_bad_input)

using namespace test_http;

namespace {

struct outcome {
    int status = -1;  // exit status; -1 when killed or timed out
    std::string err;  // stderr
};

// Runs `openloop ARGS` with stdout discarded, stderr captured, killed after 20 s.
outcome run_binary(const std::vector<std::string>& args) {
    int pipe_fd[2];
    BOOST_TEST_REQUIRE(::pipe(pipe_fd) == 0);
    const pid_t pid = ::fork();
    BOOST_TEST_REQUIRE(pid >= 0);
    if (pid == 0) {
        ::dup2(pipe_fd[1], STDERR_FILENO);
        const int null = ::open("/dev/null", O_WRONLY);
        ::dup2(null, STDOUT_FILENO);
        ::close(pipe_fd[0]);
        std::vector<char*> argv{const_cast<char*>(openloop_test::bin)};
        for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        ::execv(openloop_test::bin, argv.data());
        ::_exit(127);
    }
    ::close(pipe_fd[1]);
    ::fcntl(pipe_fd[0], F_SETFL, O_NONBLOCK);
    outcome out;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
    int wstatus = 0;
    bool exited = false;
    char buf[4096];
    while (!exited) {
        for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) out.err.append(buf, std::size_t(n));
        exited = ::waitpid(pid, &wstatus, WNOHANG) == pid;
        if (!exited && std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &wstatus, 0);
            ::close(pipe_fd[0]);
            return out;
        }
        if (!exited) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    for (ssize_t n; (n = ::read(pipe_fd[0], buf, sizeof buf)) > 0;) out.err.append(buf, std::size_t(n));
    ::close(pipe_fd[0]);
    out.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
    return out;
}

struct bad_case {
    std::vector<std::string> args;
    std::string names;  // what the message must contain: the flag, or FILE:LINE and field
};

void check_all(const std::vector<bad_case>& cases) {
    for (const auto& c : cases) {
        std::string shown;
        for (const auto& a : c.args) shown += " " + a;
        BOOST_TEST_CONTEXT("openloop" << shown) {
            const auto r = run_binary(c.args);
            BOOST_TEST(r.status == 2, r.err);
            BOOST_TEST(r.err.find(c.names) != std::string::npos, r.err);
            // One message: a single line, never a second error.
            BOOST_TEST(r.err.find('\n') == r.err.size() - 1, r.err);
        }
    }
}

void write(const std::string& path, const std::string& text) { std::ofstream(path) << text; }

// Closed port: nothing is ever sent; the failures below happen before a connect.
const std::vector<std::string> nowhere = {"--target", "http://127.0.0.1:9", "--out", "-", "--num-requests", "1"};

std::vector<std::string> run_with(std::vector<std::string> args) {
    args.insert(args.begin(), "run");
    args.insert(args.end(), nowhere.begin(), nowhere.end());
    return args;
}

}  // namespace

BOOST_AUTO_TEST_CASE(run_flags) {
    std::vector<bad_case> cases;
    auto flag = [&](std::string name, std::vector<std::string> values) {
        for (auto& v : values) cases.push_back({{"run", name, v, "--out", "-"}, name});
    };
    flag("--num-requests", {"-1", "0", "5x", "99999999999999999999999", "1.5"});
    flag("--duration", {"0", "-1", "1e300", "soon", "5 days"});
    flag("--rate", {"0", "-1", "inf", "nan", "abc", "2x"});
    flag("--burstiness", {"0", "-2", "inf"});
    flag("--seed", {"-1", "x"});
    flag("--max-inflight", {"0", "-5"});
    flag("--concurrency", {"0", "-1", "two"});
    flag("--warmup", {"-1", "later"});
    flag("--prefix-len", {"-1", "x", "512"});  // 512: not shorter than the default --input-len
    flag("--prefix-groups", {"0", "-1"});
    flag("--trace-speed", {"0", "-1", "nan"});
    flag("--vocab-size", {"5", "-1"});
    flag("--temperature", {"-1", "inf"});
    flag("--sampling-seed", {"-2", "1.5"});
    flag("--max-body", {"0", "-1"});
    flag("--spare-connections", {"-1"});
    flag("--connect-timeout", {"-1s", "soon", "1e300"});
    flag("--first-token-timeout", {"-1"});
    flag("--idle-timeout", {"x"});
    flag("--timeout", {"1e300", "-5ms"});
    flag("--grace", {"-1"});
    flag("--drain", {"0", "-1", "never"});
    flag("--keep-alive-idle", {"-1"});
    flag("--lag-bound", {"0", "-1ms"});
    flag("--max-error-rate", {"2", "-1%", "x"});
    flag("--goodput", {"ttft=0", "ttft=fast", "speed=1s"});
    flag("--reasoning-parser", {"deepseek_r1", ""});
    flag("--input-len", {"0", "abc", "uniform:5", "uniform:9:3", "lognormal:0:1"});
    flag("--output-len", {"-3", "normal:x:1"});
    // openloop's own marks inside are refused by cli/ too, before any simulator starts.
    flag("--extra-body", {"{", "[1]", "\"text\"", R"({"note": "@@openloop-prompt@@"})"});
    flag("--target", {"ftp://x", "sim:nope", "http://"});
    flag("--endpoint", {"embedding", "tokenize"});
    flag("--turns", {"0", "lognormal:4:0.5", "uniform:3", "5000"});
    flag("--think-time", {"2s"});  // without --turns
    flag("--headline", {"latency"});
    flag("--rag-docs", {"0", "-3", "2000000", "many"});
    flag("--rag-k", {"3"});  // without --rag-docs
    cases.push_back({{"run", "--rag-docs", "5", "--rag-k", "6", "--out", "-"}, "--rag-k"});
    cases.push_back({{"run", "--rag-docs", "5", "--rag-zipf", "-1", "--out", "-"}, "--rag-zipf"});
    cases.push_back({{"run", "--rag-docs", "5", "--rag-doc-len", "0", "--out", "-"}, "--rag-doc-len"});
    flag("--progress", {"maybe"});
    flag("--arrival", {"weird"});
    flag("--shard", {"3/2", "x", "-1/2", "1/0"});
    flag("--start-at", {"soon", "+x", "@-1", "2026-13-40T10:00:00Z", "10:40"});
    flag("--start-tolerance", {"-1", "x"});
    flag("--rate-profile", {"fast", "2:-1"});
    flag("--trace-format", {"parquet"});
    flag("--tokenizer", {"magic"});
    flag("--system-prompt", {" ", "Be @@openloop-prompt@@ brief"});
    cases.push_back({{"run", "--system-prompt", "Be brief.", "--endpoint", "completions", "--out", "-"},
                     "--system-prompt needs --endpoint chat"});
    flag("--request-id-prefix", {"a\r\nX-Injected: 1"});
    // A header's value may be a secret: the message names the header, never the value.
    cases.push_back({{"run", "--header", "X-Key: secret\r\nX-Injected: 1", "--out", "-"}, "--header X-Key"});
    cases.push_back({{"run", "--header", "X-Key: a\nb", "--out", "-"}, "--header X-Key"});
    cases.push_back({{"run", "--header", "X-Key: a\x01", "--out", "-"}, "--header X-Key"});
    cases.push_back({{"run", "--header", "Bad Name: v", "--out", "-"}, "--header 'Bad Name'"});
    cases.push_back({{"run", "--header", "X\r\nY: v", "--out", "-"}, "--header 'X\\x0d\\x0aY'"});
    cases.push_back({{"run", "--header", "novalue", "--out", "-"}, "--header"});
    cases.push_back({{"run", "--no-such-flag", "--out", "-"}, "--no-such-flag"});
    // Trace selection flags: combinations that make no sense name their flags.
    auto traced = [&](std::vector<std::string> args, std::string what) {
        args.insert(args.begin(), {"run", "--trace", "t.csv", "--out", "-"});
        cases.push_back({args, what});
    };
    traced({"--rate", "5", "--trace-speed", "2"}, "--rate and --trace-speed");
    traced({"--rate-profile", "2:60"}, "--rate-profile does not apply to a --trace");
    traced({"--trace-from", "2m", "--trace-to", "1m"}, "--trace-to must be after --trace-from");
    traced({"--trace-from", "-1"}, "--trace-from: '-1' is negative");
    traced({"--trace-to", "soon"}, "--trace-to");
    traced({"--trace-max-requests", "0"}, "--trace-max-requests must be at least 1");
    traced({"--trace-columns", "time=t,input=i"}, "--trace-columns \"time=t,input=i\": no output=NAME");
    traced({"--trace-columns", "time=t,input=i,output=o", "--trace-format", "azure"}, "--trace-format or --trace-columns");
    traced({"--trace-delimiter", ";;"}, "--trace-delimiter must be one character");
    cases.push_back({{"run", "--trace-from", "1m", "--out", "-"}, "--trace-from applies to a --trace only"});
    cases.push_back({{"run", "--trace-columns", "time=t,input=i,output=o", "--out", "-"}, "--trace-columns applies"});
    cases.push_back({{"run", "--loop", "--out", "-"}, "--loop applies to a --trace only"});
    check_all(cases);
    const auto secret = run_binary({"run", "--header", "X-Key: hunter2\r\nX: 1", "--out", "-"});
    BOOST_TEST(secret.err.find("hunter2") == std::string::npos, secret.err);
    // The prefix is a header value too: named, never echoed.
    const auto prefix = run_binary({"run", "--request-id-prefix", "id-hunter2\r\nX-Injected: 1", "--out", "-"});
    BOOST_TEST(prefix.status == 2, prefix.err);
    BOOST_TEST(prefix.err.find("--request-id-prefix: ") != std::string::npos, prefix.err);
    BOOST_TEST(prefix.err.find("hunter2") == std::string::npos, prefix.err);
    BOOST_TEST(prefix.err.find("Injected") == std::string::npos, prefix.err);
}

BOOST_AUTO_TEST_CASE(input_files) {
    temp_dir dir;
    write(dir.file("bad.jsonl"), "{\"prompt\": \"hello there\"}\n{\"text\": 5}\n");
    write(dir.file("bad-max.jsonl"), "{\"prompt\": \"a b\"}\n\n{\"prompt\": \"a b\", \"max_tokens\": -4}\n");
    write(dir.file("empty.jsonl"), "\n\n");
    write(dir.file("share.json"), "[{\"conversations\": [\n{\"from\": \"human\", \"value\": \"hi\"},\n oops]}]");
    write(dir.file("mooncake.jsonl"), "{\"timestamp\": 0, \"input_length\": 5, \"output_length\": 2}\n"
                                      "{\"timestamp\": 1, \"input_length\": -5, \"output_length\": 2}\n");
    write(dir.file("openloop.jsonl"), "{\"intended_ns\": 0, \"input_tokens\": 5, \"output_tokens\": 2}\n"
                                      "{\"intended_ns\": 10, \"input_tokens\": 5}\n");
    write(dir.file("azure.csv"), "TIMESTAMP,ContextTokens,GeneratedTokens\n"
                                 "2023-11-16 18:15:46.6805900,374,44\n"
                                 "2023-11-16 18:15:47.0000000,many,44\n");
    write(dir.file("burstgpt.csv"), "Timestamp,Model,Request tokens,Response tokens\n0,x,10,5\n"
                                    "1.5,x,10,lots\n");
    write(dir.file("unknown.csv"), "a,b,c\n1,2,3\n");
    write(dir.file("garbage.pem"), "not a certificate\n");
    const std::string d = dir.file("");
    check_all({
        // Like every other file the user names, whether or not the target is https.
        {run_with({"--ca-file", d + "missing.pem"}), "--ca-file " + d + "missing.pem: cannot read the file"},
        {run_with({"--ca-file", d + "garbage.pem"}), "--ca-file " + d + "garbage.pem: not a PEM file"},
        {{"run", "--ca-file", d + "garbage.pem", "--target", "https://127.0.0.1:9", "--model", "m", "--out", "-"},
         "--ca-file " + d + "garbage.pem: not a PEM file"},
        {run_with({"--prompts", d + "missing.jsonl"}), d + "missing.jsonl: cannot open prompts file"},
        {run_with({"--system-prompt", "@" + d + "missing.txt"}), "--system-prompt @" + d + "missing.txt: " + d + "missing.txt"},
        {run_with({"--system-prompt", "@" + d}), "--system-prompt @" + d + ": " + d + " is not a readable file"},
        {run_with({"--prompts", d + "bad.jsonl"}), d + "bad.jsonl:2: missing string field \"prompt\""},
        {run_with({"--prompts", d + "bad-max.jsonl"}), d + "bad-max.jsonl:3: field \"max_tokens\""},
        {run_with({"--prompts", d + "empty.jsonl"}), d + "empty.jsonl: no prompts"},
        {run_with({"--sharegpt", d + "missing.json"}), d + "missing.json: cannot open"},
        {run_with({"--sharegpt", d + "share.json"}), d + "share.json:3: invalid JSON"},
        {run_with({"--trace", d + "missing.jsonl"}), d + "missing.jsonl: cannot open trace file"},
        {run_with({"--trace", d + "mooncake.jsonl"}), d + "mooncake.jsonl:2: field \"input_length\""},
        {run_with({"--trace", d + "openloop.jsonl"}), d + "openloop.jsonl:2: missing field \"output_tokens\""},
        {run_with({"--trace", d + "azure.csv"}), d + "azure.csv:3: field \"ContextTokens\""},
        {run_with({"--trace", d + "burstgpt.csv"}), d + "burstgpt.csv:3: field \"Response tokens\""},
        {run_with({"--trace", d + "unknown.csv"}), d + "unknown.csv: cannot detect the trace format"},
        {run_with({"--trace", d + "azure.csv", "--trace-format", "mooncake"}), d + "azure.csv:1: invalid JSON"},
        {run_with({"--trace", d + "mooncake.jsonl", "--trace-format", "azure"}), d + "mooncake.jsonl:1: header lacks"},
        {run_with({"--trace", d + "azure.csv", "--trace-columns", "time=TIMESTAMP:iso,input=ContextTokens,output=Out"}),
         d + "azure.csv:1: header lacks column \"Out\""},
        {run_with({"--trace", d + "azure.csv", "--trace-columns", "time=TIMESTAMP,input=ContextTokens,output=GeneratedTokens"}),
         d + "azure.csv:2: field \"TIMESTAMP\": expected a non-negative time in s"},
    });
#ifdef OPENLOOP_HAVE_SENTENCEPIECE
    // A tokenizer model that is not one: refused before the first request (--model skips discovery).
    write(dir.file("not.model"), "not a sentencepiece model\n");
    check_all({
        {run_with({"--tokenizer", "sentencepiece:" + d + "missing.model", "--model", "m"}),
         "--tokenizer sentencepiece:" + d + "missing.model"},
        {run_with({"--tokenizer", "sentencepiece:" + d + "not.model", "--model", "m"}),
         "--tokenizer sentencepiece:" + d + "not.model"},
    });
#endif
}

BOOST_AUTO_TEST_CASE(scenario_lines) {
    temp_dir dir;
    auto scenario = [&](const std::string& name, const std::string& text) {
        write(dir.file(name), text);
        return dir.file(name);
    };
    const auto rate = scenario("rate.ini", "# load\nduration = 5s\nrate = abc\n");
    const auto input = scenario("input.ini", "rate = 2\n\ninput-len = uniform:9\n");
    const auto count = scenario("count.ini", "num-requests = -1\n");
    const auto zero = scenario("zero.ini", "rate = 1\nduration = 0\n");
    const auto unknown = scenario("unknown.ini", "rate = 1\nbogus = 1\n");
    const auto header = scenario("header.ini", "header = X-A: b\x01\n");
    const auto body = scenario("body.ini", "\n\nextra-body = [1]\n");
    const auto slo = scenario("slo.ini", "stage-duration = 10s\nslo = ttft_p99=never\n");
    const auto sim = scenario("sim.ini", "preset = cpu-small\nmax-num-seqs = 0\n");
    const auto sim_port = scenario("sim-port.ini", "port = -1\n");
    const auto no_eq = scenario("no-eq.ini", "rate = 2\n# a comment\n\nduration 5s\n");
    const auto twice = scenario("twice.ini", "rate = 2\nduration = 5s\n\nrate = abc\n");
    const auto sim_twice = scenario("sim-twice.ini", "preset = cpu-small\nport = 1\nport = 2 # again\n");
    const auto ca = scenario("ca.ini", "rate = 2\nca-file = " + dir.file("none.pem") + "\n");
    check_all({
        {{"run", rate, "--out", "-"}, rate + ":3: --rate: 'abc'"},
        {{"run", input, "--out", "-"}, input + ":3: invalid length distribution \"uniform:9\" for --input-len"},
        {{"run", count, "--out", "-"}, count + ":1: --num-requests: '-1' is negative"},
        {{"run", zero, "--out", "-"}, zero + ":2: --duration must be positive"},
        {{"run", unknown, "--out", "-"}, unknown + ":2:"},
        {{"run", header, "--out", "-"}, header + ":1: --header X-A"},
        {{"run", body, "--out", "-"}, body + ":3: --extra-body"},
        {{"sweep", slo, "--out", "-"}, slo + ":2: bad --slo"},
        {{"sweep", zero, "--out", "-"}, zero + ":2: --duration"},
        {{"run", dir.file("none.ini"), "--out", "-"}, "cannot read scenario file " + dir.file("none.ini")},
        {{"sim", "--config", sim}, sim + ":2: sim: --max-num-seqs must be at least 1"},
        {{"sim", "--config", sim_port}, sim_port + ":1: --port: '-1' is negative"},
        {{"run", no_eq, "--out", "-"}, no_eq + ":4: expected 'name = value'"},
        {{"sweep", no_eq, "--out", "-"}, no_eq + ":4: expected 'name = value'"},
        // The duplicate's line, and where the first one was.
        {{"run", twice, "--out", "-"}, twice + ":4: --rate is given again (first at line 1)"},
        {{"sim", "--config", sim_twice}, sim_twice + ":3: --port is given again (first at line 2)"},
        {{"run", ca, "--out", "-"}, ca + ":2: --ca-file " + dir.file("none.pem") + ": cannot read"},
    });
    // A line without '=' may be a header with its value: it is not echoed.
    write(no_eq, "header X-Key: hunter2\n");
    const auto quiet = run_binary({"run", no_eq, "--out", "-"});
    BOOST_TEST(quiet.status == 2, quiet.err);
    BOOST_TEST(quiet.err.find("hunter2") == std::string::npos, quiet.err);
    // A repeatable option may be given on several lines.
    const auto headers = scenario("headers.ini", "header = X-A: 1\nheader = X-B: 2\n");
    const auto repeated = run_binary({"run", headers, "--help"});
    BOOST_TEST(repeated.status == 0, repeated.err);
    // The command line wins over the file, and a bad value it overrides is not read.
    const auto ok = run_binary({"run", rate, "--rate", "2", "--help"});
    BOOST_TEST(ok.status == 0, ok.err);
}

BOOST_AUTO_TEST_CASE(sweep_flags) {
    std::vector<bad_case> cases;
    auto flag = [&](std::string name, std::vector<std::string> values) {
        for (auto& v : values) cases.push_back({{"sweep", name, v, "--out", "-"}, name});
    };
    flag("--rates", {"0", "-1,2", "abc", "4,2", "1:10:x0"});
    flag("--precision", {"0", "2", "x"});
    flag("--start-rate", {"0", "-1", "nan"});
    flag("--factor", {"1", "0.5", "inf"});
    flag("--max-rate", {"0", "-1"});
    flag("--max-stages", {"0", "-1"});
    flag("--stage-duration", {"0", "-1", "x"});
    flag("--duration", {"0"});
    flag("--min-samples", {"-1", "many"});
    flag("--cooldown", {"-1", "x"});
    flag("--abort-inflight", {"-1"});
    flag("--stage-extension", {"0.5", "-1", "x", "inf"});
    flag("--rate-block", {"-1", "x", "4000000000"});
    flag("--users-think-time", {"x"});
    flag("--slo", {"ttft_p99=x", "bogus=1s", "ttft_p99"});
    flag("--concurrency", {"0", "4,2", "x"});
    flag("--num-requests", {"-1"});
    // Each stage replays a trace at the stage's rate.
    cases.push_back({{"sweep", "--trace", "t.csv", "--trace-speed", "2", "--out", "-"},
                     "sweep: each stage replays the --trace at the stage's rate; --trace-speed does not apply"});
    check_all(cases);
}

BOOST_AUTO_TEST_CASE(sim_flags) {
    std::vector<bad_case> cases;
    auto flag = [&](std::string name, std::vector<std::string> values) {
        for (auto& v : values) cases.push_back({{"sim", name, v, "--capacity"}, name});
    };
    flag("--port", {"70000", "-1", "x"});
    flag("--seed", {"-1"});
    flag("--preset", {"nope"});
    flag("--keep-alive-timeout", {"never", "-1"});
    flag("--keep-alive-max-requests", {"-1"});
    flag("--tokenizer", {"x"});
    flag("--step-base-ms", {"-1", "nan", "inf"});
    flag("--prefill-token-ms", {"-1"});
    flag("--decode-seq-ms", {"-0.5"});
    flag("--kv-token-ms", {"-1"});
    flag("--max-num-seqs", {"0", "-1", "99999999999"});
    flag("--max-batched-tokens", {"0"});
    flag("--kv-capacity-tokens", {"0"});
    flag("--max-model-len", {"1", "x"});
    flag("--block-size", {"0"});
    flag("--tokens-per-chunk", {"0"});
    flag("--fault-500", {"2", "-0.1", "nan"});
    flag("--fault-stall", {"1.5"});
    flag("--stall-ms", {"-1"});
    flag("--slow-first-byte-ms", {"-1"});
    flag("--retry-after", {"-1"});
    flag("--input-len", {"0"});
    flag("--output-len", {"-1"});
    flag("--quirk", {"nope"});
    flag("--leak-bytes-per-request", {"-1", "x"});
    flag("--slowdown-per-hour", {"-1", "inf", "x"});
    flag("--slowdown-step-at", {"-1", "soon"});
    flag("--slowdown-step-factor", {"0", "-2", "nan"});
    flag("--config", {"/nonexistent/sim.ini"});
    check_all(cases);
    // Its certificate and key are input files too: exit 2, like --ca-file's.
    temp_dir dir;
    write(dir.file("garbage.pem"), "not a certificate\n");
    const auto missing = dir.file("missing.pem"), garbage = dir.file("garbage.pem");
    check_all({
        {{"sim", "--port", "0", "--tls-cert", missing, "--tls-key", missing}, "--tls-cert " + missing + ": cannot load"},
        {{"sim", "--port", "0", "--tls-cert", garbage, "--tls-key", garbage}, "--tls-cert " + garbage + ": cannot load"},
        {{"sim", "--port", "0", "--tls-cert", garbage}, "--tls-cert and --tls-key go together"},
    });
}

BOOST_AUTO_TEST_SUITE_END()
