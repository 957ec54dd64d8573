#include <boost/test/unit_test.hpp>

#include "openloop/results/merge.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_merge)

using namespace openloop;

namespace {

constexpr std::int64_t s_ns = 1'000'000'000;

// One finished request line: intended at t s, first token 100 ms later, done 200 ms later.
std::string line(int index, std::int64_t t_ns, std::int64_t ttft_ms) {
    const std::int64_t first = t_ns + ttft_ms * 1'000'000, end = t_ns + 200'000'000;
    return "{\"id\":\"r" + std::to_string(index) + "\",\"index\":" + std::to_string(index) +
           ",\"warmup\":false,\"status\":\"ok\",\"error\":null,\"intended_ns\":" + std::to_string(t_ns) +
           ",\"sent_ns\":" + std::to_string(t_ns) + ",\"first_token_ns\":" + std::to_string(first) +
           ",\"last_token_ns\":" + std::to_string(end) + ",\"end_ns\":" + std::to_string(end) +
           ",\"input_tokens\":10,\"output_tokens\":5,\"max_tokens\":5}\n";
}

std::string part(std::int64_t from_s, int n, std::int64_t ttft_ms) {
    std::string s;
    for (int i = 0; i < n; ++i) s += line(i, from_s * s_ns + i * s_ns / 2, ttft_ms);
    return s;
}

}  // namespace

// Shards that ran together: one window, their rates add; the histograms
// equal one rebuild over every line.
BOOST_AUTO_TEST_CASE(shards_that_ran_together_add_their_rates) {
    const auto m = merge_runs({{"a", part(10, 5, 100), 2}, {"b", part(10, 5, 300), 2}});
    BOOST_TEST(m.rebuilt.stats.completed == 10u);
    BOOST_TEST(m.window_ns == 2'200'000'000);  // 0 .. 2 s of sends, the last done 0.2 s later
    BOOST_TEST(m.offered_rate == 4.0);
    BOOST_TEST(m.rebuilt.stats.duration_s() == 2.2);
    BOOST_TEST(m.rebuilt.stats.ttft.percentile(50) == 100'000'000);
    BOOST_TEST(m.rebuilt.stats.ttft.percentile(60) == 300'000'000);
    BOOST_TEST(m.parts.size() == 2u);
    BOOST_TEST(m.parts[1].stats.completed == 5u);
}

// Repeats, one after the other: the gap between them is no part's time.
BOOST_AUTO_TEST_CASE(repeats_add_their_durations_and_average_their_rates) {
    const auto m = merge_runs({{"a", part(10, 5, 100), 2}, {"b", part(100, 5, 100), 4}});
    BOOST_TEST(m.window_ns == 2 * 2'200'000'000);
    BOOST_TEST(m.offered_rate == 3.0);
    BOOST_TEST(m.rebuilt.stats.duration_s() == 4.4);
}

BOOST_AUTO_TEST_CASE(lines_are_tagged_with_their_origin_and_torn_ones_stay_torn) {
    const auto m = merge_runs({{"run \"1\"", line(0, s_ns, 100) + "{\"torn", 1}, {"b", line(0, 2 * s_ns, 100), 1}});
    BOOST_TEST(m.requests_jsonl.rfind("{\"origin\":\"run \\\"1\\\"\",\"id\":\"r0\"", 0) == 0u, m.requests_jsonl);
    BOOST_TEST(m.requests_jsonl.find("\"torn\n") != std::string::npos);  // still torn: counted, not read
    BOOST_TEST(m.requests_jsonl.find("{\"origin\":\"b\",\"id\"") != std::string::npos);
    BOOST_TEST(m.rebuilt.stats.completed == 2u);
    BOOST_TEST(m.rebuilt.bad_lines == 1u);
}

BOOST_AUTO_TEST_CASE(only_the_request_times_move_onto_the_wall_clock) {
    std::string out;
    append_shifted(out,
                   R"({"id":"r1","error":"x,\"sent_ns\":5","intended_ns":100,"released_ns":null,"sent_ns":-3,)"
                   R"("first_token_ns":7,"end_ns":9,"queue_ns":1,"cached_tokens":4})",
                   1000);
    BOOST_TEST(out == R"({"id":"r1","error":"x,\"sent_ns\":5","intended_ns":1100,"released_ns":null,"sent_ns":997,)"
                      R"("first_token_ns":1007,"end_ns":1009,"queue_ns":1,"cached_tokens":4})");
    out.clear();
    append_shifted(out, R"({"intended_ns":100})", 0);
    BOOST_TEST(out == R"({"intended_ns":100})");
}

// Two shards of one run on hosts whose monotonic clocks differ by 1000 s: on
// the wall clock their requests interleave in one window.
BOOST_AUTO_TEST_CASE(shards_on_other_hosts_meet_on_the_wall_clock) {
    merge_input a{"a", part(10, 4, 100), {}, true, {}};
    merge_input b{"b", part(1010, 4, 300), {}, false, {"schedule lag p99 9 ms exceeds the bound"}};
    a.context.request_rate = b.context.request_rate = 2;
    a.context.shard = "0/2";
    a.context.arrival = "poisson 4 req/s";
    a.context.clock = {5000 * s_ns, 10 * s_ns, -1, 0, 100};
    b.context.clock = {4000 * s_ns, 1010 * s_ns + s_ns / 4, -1, 0, 100};
    const merged_result m = merge_results({a, b});
    BOOST_TEST(m.result.stats.completed == 8u);
    BOOST_TEST(m.summary.at("merged").at("clock").as_string() == "wall");
    BOOST_TEST(m.summary.at("merged").at("start_spread_ms").as_double() == 250.0);
    BOOST_TEST(m.summary.at("merged").at("window").as_double() == 1.7);  // 5010 .. 5011.7 s
    BOOST_TEST(m.result.context.request_rate == 4.0);
    BOOST_TEST(m.context.shard.empty());
    BOOST_TEST(m.context.arrival == "poisson 4 req/s, 2 shards merged");
    BOOST_TEST(m.context.clock.origin_wall_ns() == 5010 * s_ns);
    BOOST_TEST(!m.result.validity.valid);
    BOOST_TEST(m.result.validity.reasons.back() == "part b: schedule lag p99 9 ms exceeds the bound");
    BOOST_TEST(m.requests_jsonl.find("\"intended_ns\":5010000000000,") != std::string::npos);

    // A part without a start clock: the monotonic clock, as the logs have it.
    b.context.clock = {};
    const merged_result apart = merge_results({a, b});
    BOOST_TEST(apart.summary.at("merged").at("clock").as_string() == "monotonic: a part has no start clock");
    BOOST_TEST(apart.summary.at("merged").at("start_spread_ms").is_null());
}

// Parts of different runs: each named with what differs from the first;
// merged anyway (as --allow-mismatch asks), the result says so and names
// every part's target.
BOOST_AUTO_TEST_CASE(parts_of_different_runs_are_named_and_recorded_when_allowed) {
    merge_input a{"a", part(10, 4, 100), {}, true, {}};
    merge_input b{"b", part(20, 4, 100), {}, true, {}};
    merge_input c{"c", part(30, 4, 100), {}, true, {}};
    a.context.target = b.context.target = "http://x:8000/v1";
    c.context.target = "http://y:8000/v1";
    a.context.config = boost::json::object{{"rate", 2.0}, {"input-len", "64"}, {"seed", 1}};
    b.context.config = boost::json::object{{"rate", 2.0}, {"input-len", "64"}, {"seed", 2}};
    c.context.config = boost::json::object{{"rate", 2.0}, {"input-len", "128"}, {"seed", 3}};
    BOOST_TEST(merge_mismatches({a, b}).empty());
    const auto mismatches = merge_mismatches({a, b, c});
    BOOST_TEST_REQUIRE(mismatches.size() == 1u);
    BOOST_TEST(mismatches_text(mismatches) == "c: target: http://x:8000/v1 vs http://y:8000/v1; lengths: input-len 64 vs 128");

    const merged_result m = merge_results({a, b, c}, true);
    const auto& merged = m.summary.at("merged").as_object();
    BOOST_TEST(merged.at("allow_mismatch").as_bool());
    BOOST_TEST(merged.at("mismatches").as_array().size() == 1u);
    BOOST_TEST(merged.at("mismatches").at(0).at("part").as_string() == "c");
    BOOST_TEST(m.context.target == "http://x:8000/v1 | http://y:8000/v1");

    // A part without run.json cannot be checked: named, never called the same run.
    merge_input old{"old", part(40, 4, 100), {}, true, {}};
    BOOST_TEST(merge_mismatches({a, old}).empty());
    BOOST_TEST(unchecked_parts({a, old}) == std::vector<std::string>{"old"});
    const merged_result same = merge_results({a, b});
    BOOST_TEST(!same.summary.at("merged").at("allow_mismatch").as_bool());
    BOOST_TEST(same.summary.at("merged").at("mismatches").as_array().empty());
    BOOST_TEST(same.context.target == "http://x:8000/v1");
}

// Shards of a mixed run with images: the merged summary has each model and the media,
// counted over every part's lines.
BOOST_AUTO_TEST_CASE(shards_of_a_mixed_run_merge_by_model_and_media) {
    const auto tagged = [](std::string lines, const char* model, bool image) {
        std::string out;
        for (std::size_t at = 0, end; (end = lines.find('\n', at)) != std::string::npos; at = end + 1) {
            std::string l = lines.substr(at, end - at);
            l.insert(l.find(",\"warmup\""), std::string(",\"model\":\"") + model + "\"");
            if (image) l.insert(l.find(",\"max_tokens\""), ",\"images\":1,\"audios\":0,\"bucket\":\"512x512\",\"body_bytes\":51000");
            out += l + "\n";
        }
        return out;
    };
    std::vector<merge_input> parts(2);
    parts[0].name = "a";
    parts[0].requests_jsonl = tagged(part(10, 4, 100), "base", false);
    parts[1].name = "b";
    parts[1].requests_jsonl = tagged(part(10, 2, 300), "sql-lora", true);
    const merged_result m = merge_results(parts);
    const boost::json::object& by_model = m.summary.at("by_model").as_object();
    BOOST_TEST(by_model.at("base").at("completed").as_uint64() == 4u);
    BOOST_TEST(by_model.at("sql-lora").at("completed").as_uint64() == 2u);
    BOOST_TEST(by_model.at("sql-lora").at("p50_ttft_ms").as_double() == 300.0);
    const boost::json::object& media = m.summary.at("media").as_object();
    BOOST_TEST(media.at("requests").as_uint64() == 2u);
    BOOST_TEST(media.at("body_bytes").at("total").as_int64() == 102'000);
    BOOST_TEST(media.at("ttft_by_images").as_array().size() == 2u);  // base's 4 text-only in row 0
}

BOOST_AUTO_TEST_SUITE_END()
