#include "sanitized.hpp"
#include <boost/test/unit_test.hpp>

// The scenarios in scenarios/ run as shipped (against the simulator each
// names), shortened from the command line, which wins over the file: each
// is valid, puts its headline metric first, and the chat and agent ones run
// sessions whose later turns carry their history.

#include "run_files.hpp"
#include "test_http.hpp"
#include "test_paths.hpp"

#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(it_scenario_files)

namespace json = boost::json;
using namespace test_http;

namespace {

struct shipped {
    std::string file;
    std::string headline;
    bool sessions;
    std::vector<std::string> shorter;
};

}  // namespace

BOOST_AUTO_TEST_CASE(each_scenario_runs_and_leads_with_its_metric) {
    const std::vector<shipped> scenarios = {
        {"chat.ini", "ttft", true, {"--duration", "3s", "--warmup", "0s", "--think-time", "100ms"}},
        // One task per session and short calls: the chain is still three tool calls and the answer.
        {"agent.ini", "session", true,
         {"--duration", "3s", "--warmup", "0s", "--turns", "1", "--tool-latency", "50ms", "--output-len", "16"}},
        {"rag.ini", "ttft", false, {"--duration", "3s", "--warmup", "0s"}},
        // Shorter answers: thinking of some 300 tokens then a short answer, a few seconds in all.
        {"reasoning.ini", "ttfa", false, {"--duration", "1s", "--warmup", "0s", "--rate", "3", "--output-len", "uniform:350:400"}},
        {"code.ini", "itl", false, {"--duration", "3s", "--warmup", "0s"}},
        {"batch.ini", "throughput", false, {"--num-requests", "32", "--output-len", "64"}},
    };
    temp_dir dir;
    for (const shipped& s : scenarios) {
        BOOST_TEST_CONTEXT(s.file) {
            std::vector<std::string> args = {std::string(openloop_test::source_dir) + "/scenarios/" + s.file, "--out",
                                             dir.file(s.file)};
            args.insert(args.end(), s.shorter.begin(), s.shorter.end());
            const int rc = run_openloop(args, dir.file(s.file + ".log"));
            const std::string log = slurp(dir.file(s.file + ".log"));
            BOOST_TEST_REQUIRE(rc == 0, log);
            // The table's first line after the verdict is the headline.
            const auto verdict = log.find("VALID\n");
            BOOST_TEST_REQUIRE(verdict != std::string::npos, log);
            BOOST_TEST(log.compare(verdict + 6, 15, "headline       ") == 0, log);
            const json::object summary = read_json(dir.file(s.file) + "/summary.json");
            BOOST_TEST(summary.at("headline").at("metric").as_string() == s.headline);
            if (s.headline == "throughput") {
                BOOST_TEST(summary.at("headline").at("requests_per_s").to_number<double>() > 0);
            } else {
                BOOST_TEST(summary.at("headline").at("p50_ms").to_number<double>() > 0);
            }
            BOOST_TEST(summary.contains("sessions") == s.sessions);
            if (s.sessions) {
                const json::object& sessions = summary.at("sessions").as_object();
                BOOST_TEST(sessions.at("completed").as_int64() == sessions.at("started").as_int64());
                BOOST_TEST(sessions.at("by_turn").as_array().size() >= 2u);
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
