#include <boost/test/unit_test.hpp>

// The simulator's injected faults and server quirks (src/sim/faults), each on
// every request, through the real `openloop run`: a fault ends every request
// in its error class, a quirk of a real server ends every one completed. The
// same checks and records as the raw hostile server's cases.

#include "hostile_case.hpp"
#include "openloop/cli/child_process.hpp"
#include "test_paths.hpp"

#include <set>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_hostile_sim)

using hostile::hostile_case;
using hostile::small_rss_mib;

namespace {

constexpr const char* suite = "hostile_sim";

struct sim_case {
    std::string name, input, expected, limits;
    std::vector<std::string> sim_flags;  // after --preset firehose
    std::vector<std::string> run_flags;  // after the common ones
};

// Starts the simulator with the case's flags and runs the case against it.
void run_sim_case(const sim_case& c, const std::set<std::string>& also = {}) {
    std::vector<std::string> sim_args{"--preset", "firehose", "--served-model-name", "hostile"};
    sim_args.insert(sim_args.end(), c.sim_flags.begin(), c.sim_flags.end());
    auto sim = openloop::start_sim(openloop_test::bin, sim_args);
    hostile_case k({suite, c.name, c.input, c.expected, c.limits, 10, small_rss_mib});
    std::vector<std::string> flags{"--rate", "20", "--num-requests", "5", "--ignore-eos"};
    flags.insert(flags.end(), c.run_flags.begin(), c.run_flags.end());
    k.run(sim.url, flags);
    k.expect_outcome(5, also);
    if (c.expected == "ok" && !also.count("bad_usage"))
        k.check(k.observed().summary.at("total_output_tokens").to_number<std::int64_t>() == 5 * 8,
                "40 output tokens: 8 per request");
    sim.process.stop();
}

}  // namespace

BOOST_AUTO_TEST_CASE(fault_429) {
    run_sim_case({"fault_429", "sim --fault-429 1: HTTP 429 with Retry-After", "http_4xx", "the status", {"--fault-429", "1"}, {}});
}

BOOST_AUTO_TEST_CASE(fault_500) {
    run_sim_case({"fault_500", "sim --fault-500 1: HTTP 500", "http_5xx", "the status", {"--fault-500", "1"}, {}});
}

BOOST_AUTO_TEST_CASE(fault_503) {
    run_sim_case({"fault_503", "sim --fault-503 1: HTTP 503", "http_5xx", "the status", {"--fault-503", "1"}, {}});
}

BOOST_AUTO_TEST_CASE(fault_disconnect) {
    run_sim_case({"fault_disconnect", "sim --fault-disconnect 1: the connection closed halfway through the stream",
                  "stream_truncated", "the connection's end", {"--fault-disconnect", "1"}, {}});
}

BOOST_AUTO_TEST_CASE(fault_bad_chunk) {
    run_sim_case({"fault_bad_chunk", "sim --fault-bad-chunk 1: one malformed JSON chunk halfway through", "bad_chunk",
                  "the bad chunk", {"--fault-bad-chunk", "1"}, {}});
}

BOOST_AUTO_TEST_CASE(fault_stall) {
    run_sim_case({"fault_stall", "sim --fault-stall 1 --stall-ms 1000: a 1 s pause between two tokens", "timeout_idle",
                  "--idle-timeout 200ms", {"--fault-stall", "1", "--stall-ms", "1000"}, {"--idle-timeout", "200ms"}});
}

BOOST_AUTO_TEST_CASE(fault_slow_first_byte) {
    run_sim_case({"fault_slow_first_byte", "sim --fault-slow-first-byte 1 --slow-first-byte-ms 1000: 1 s before the response",
                  "timeout_first_token", "--first-token-timeout 200ms",
                  {"--fault-slow-first-byte", "1", "--slow-first-byte-ms", "1000"}, {"--first-token-timeout", "200ms"}});
}

BOOST_AUTO_TEST_CASE(wrong_model) {
    sim_case c{"wrong_model", "sim serving another model: 404 \"The model `hostile` does not exist.\"", "http_4xx",
               "the status", {}, {}};
    std::vector<std::string> sim_args{"--preset", "firehose"};
    auto sim = openloop::start_sim(openloop_test::bin, sim_args);
    hostile_case k({suite, c.name, c.input, c.expected, c.limits, 10, small_rss_mib});
    k.run(sim.url, {"--rate", "20", "--num-requests", "5"});
    // A run that fails fast on a non-retryable status may stop before all five.
    k.expect_outcome(1);
    sim.process.stop();
}

BOOST_AUTO_TEST_CASE(quirks_of_real_servers) {
    const std::pair<const char*, const char*> quirks[] = {
        {"no-role-chunk", "no role-only first chunk (TGI, some proxies)"},
        {"usage-in-last-chunk", "usage on the last content chunk, no usage-only chunk"},
        {"always-usage", "usage sent even when not asked for (llama.cpp)"},
        {"no-done", "the stream ends without data: [DONE] (finish_reason sent)"},
        {"keepalive-comments", "`: keep-alive` SSE comments between chunks"},
        {"empty-choices-chunk", "an extra chunk with \"choices\": [] and no usage"},
        {"close-after-completion", "the connection closed after every answer (llama.cpp)"},
    };
    for (const auto& [quirk, what] : quirks)
        run_sim_case({std::string("quirk_") + quirk, std::string("sim --quirk ") + quirk + ": " + what, "ok",
                      "the run's bound", {"--quirk", quirk}, {}});
}

BOOST_AUTO_TEST_CASE(quirk_ignore_stream_options) {
    run_sim_case({"quirk_ignore-stream-options",
                  "sim --quirk ignore-stream-options: no usage at all; output counted by content chunks", "ok",
                  "the run's bound", {"--quirk", "ignore-stream-options"}, {}});
}

BOOST_AUTO_TEST_CASE(quirk_absurd_usage) {
    run_sim_case({"quirk_absurd-usage", "sim --quirk absurd-usage: completion_tokens jumps to 2^31 - 1", "ok",
                  "bad_usage; output counted by chunks", {"--quirk", "absurd-usage"}, {}},
                 {"bad_usage"});
}

BOOST_AUTO_TEST_SUITE_END()
