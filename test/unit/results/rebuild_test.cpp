#include <boost/test/unit_test.hpp>

// A killed run's statistics rebuilt from its requests.jsonl equal what the
// run itself had: the golden run's request log against its summary.json.

#include "openloop/results/fidelity.hpp"
#include "openloop/results/rebuild.hpp"
#include "test_paths.hpp"

#include <boost/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <fstream>
#include <sstream>

BOOST_AUTO_TEST_SUITE(unit_rebuild)

using namespace openloop;
namespace json = boost::json;

namespace {

std::string slurp(const std::string& path) {
    std::ifstream in(path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

const std::string golden = std::string(openloop_test::source_dir) + "/test/data/golden/";

}  // namespace

BOOST_AUTO_TEST_CASE(the_golden_request_log_rebuilds_the_golden_summary) {
    const rebuilt_stats r = rebuild_stats(slurp(golden + "requests.jsonl"));
    const json::object summary = json::parse(slurp(golden + "summary.json")).as_object();
    const run_stats& s = r.stats;
    BOOST_TEST(r.bad_lines == 0u);
    BOOST_TEST(s.started == summary.at("started").to_number<std::uint64_t>());
    BOOST_TEST(s.completed == summary.at("completed").to_number<std::uint64_t>());
    BOOST_TEST(s.failed == summary.at("failed").to_number<std::uint64_t>());
    BOOST_TEST(s.unfinished == summary.at("unfinished").to_number<std::uint64_t>());
    BOOST_TEST(s.warmup_started == summary.at("warmup_requests").to_number<std::uint64_t>());
    BOOST_TEST(s.total_input_tokens == summary.at("total_input_tokens").to_number<std::int64_t>());
    BOOST_TEST(s.total_output_tokens == summary.at("total_output_tokens").to_number<std::int64_t>());
    BOOST_TEST(s.cached_prompt_tokens == summary.at("cached_prompt_tokens").to_number<std::int64_t>());
    BOOST_TEST(s.server_prompt_tokens == summary.at("server_prompt_tokens").to_number<std::int64_t>());
    BOOST_TEST(s.failed_by_class[static_cast<int>(error_class::http_5xx)] == 1u);
    BOOST_TEST(s.failed_by_class[static_cast<int>(error_class::stream_truncated)] == 1u);
    BOOST_TEST(s.http_status_counts.size() == 1u);
    BOOST_TEST(s.http_status_counts[0].first == 503);
    const json::object& h = summary.at("histograms").as_object();
    BOOST_TEST((s.ttft == histogram::from_json(h.at("ttft"))));
    BOOST_TEST((s.tpot == histogram::from_json(h.at("tpot"))));
    BOOST_TEST((s.e2e == histogram::from_json(h.at("e2el"))));
    BOOST_TEST((s.lag == histogram::from_json(h.at("lag"))));
    BOOST_TEST((s.connect == histogram::from_json(h.at("connect"))));
    BOOST_TEST((s.ttfb == histogram::from_json(h.at("ttfb"))));
    BOOST_TEST((s.ttft_from_send == histogram::from_json(h.at("ttft_from_send"))));
    BOOST_TEST((s.e2e_from_send == histogram::from_json(h.at("e2el_from_send"))));
    BOOST_TEST(s.itl.count() == 0u);  // no per-chunk times on disk
    // The fidelity report's length sections, request by request, as the run wrote them.
    const json::object f = replay_fidelity_json(s, run_context{});
    const json::object& recorded = summary.at("fidelity").as_object();
    BOOST_TEST(json::serialize(f.at("input")) == json::serialize(recorded.at("input")));
    BOOST_TEST(json::serialize(f.at("output")) == json::serialize(recorded.at("output")));
}

BOOST_AUTO_TEST_CASE(a_torn_last_line_is_counted_apart) {
    const std::string log = slurp(golden + "requests.jsonl");
    const std::size_t lines = static_cast<std::size_t>(std::count(log.begin(), log.end(), '\n'));
    // kill -9 in the middle of a write: the last line stops halfway.
    const std::string torn = log + log.substr(0, log.find('\n') / 2);
    const rebuilt_stats r = rebuild_stats(torn);
    BOOST_TEST(r.lines == lines);
    BOOST_TEST(r.bad_lines == 1u);
    BOOST_TEST(r.first_bad_line == lines + 1);
    BOOST_TEST(r.stats.started == rebuild_stats(log).stats.started);
}

BOOST_AUTO_TEST_CASE(nothing_and_garbage_rebuild_to_nothing) {
    BOOST_TEST(rebuild_stats("").lines == 0u);
    const rebuilt_stats r = rebuild_stats("not json\n{\"status\":\"ok\"}\n[1,2]\n");
    BOOST_TEST(r.lines == 0u);
    BOOST_TEST(r.bad_lines == 3u);
    BOOST_TEST(r.first_bad_line == 1u);
    BOOST_TEST(r.stats.started == 0u);
}

BOOST_AUTO_TEST_CASE(token_counts_no_run_writes_are_not_summed) {
    // Found by fuzzing: two such lines overflowed the input-token total.
    const rebuilt_stats r = rebuild_stats("{\"intended_ns\":1,\"status\":\"ok\",\"input_tokens\":9000000000000000000}\n"
                                          "{\"intended_ns\":1,\"status\":\"ok\",\"input_tokens\":9000000000000000000}\n");
    BOOST_TEST(r.bad_lines == 2u);
    BOOST_TEST(r.stats.total_input_tokens == 0);
}

BOOST_AUTO_TEST_CASE(a_stage_view_rebuilds_the_send_window_and_the_queue) {
    // Four requests sent 100 ms apart, each 250 ms long, one warm-up before them; one not met its SLO.
    std::string log;
    const auto line = [&](int i, std::int64_t at_ms, bool warm, bool good) {
        const std::int64_t t = at_ms * 1'000'000, end = t + 250'000'000;
        log += "{\"id\":\"r" + std::to_string(i) + "\",\"index\":" + std::to_string(i) + ",\"warmup\":" +
               (warm ? "true" : "false") + ",\"status\":\"ok\",\"intended_ns\":" + std::to_string(t) +
               ",\"sent_ns\":" + std::to_string(t) + ",\"first_token_ns\":" + std::to_string(t + 1'000'000) +
               ",\"last_token_ns\":" + std::to_string(end) + ",\"end_ns\":" + std::to_string(end) +
               ",\"input_tokens\":4,\"max_tokens\":2,\"output_tokens\":2" + (good ? "" : ",\"good\":false") + "}\n";
    };
    line(0, 0, true, true);
    for (int i = 1; i <= 4; ++i) line(i, 100 * i, false, i != 3);
    const rebuilt_stats plain = rebuild_stats(log);
    BOOST_TEST(plain.stats.good == 3u);
    BOOST_TEST(plain.stats.inflight_samples.empty());
    const run_stats s = rebuild_stats(log, nullptr, true).stats;
    BOOST_TEST(s.steady_window_s == 0.3);     // measured sends from 100 to 400 ms
    BOOST_TEST(s.steady_completed == 2u);     // ended by 400 ms: the warm-up one (250 ms) and the first (350 ms)
    BOOST_TEST(s.inflight_step_ns == 100'000'000);
    BOOST_TEST(s.inflight_origin_ns == 0);
    // In flight at 0, 100, ... 600 ms.
    BOOST_TEST(s.inflight_samples == (std::vector<std::uint32_t>{1, 2, 3, 3, 3, 2, 1}), "");
}

BOOST_AUTO_TEST_SUITE_END()
