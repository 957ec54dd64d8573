#include <boost/test/unit_test.hpp>

#include "openloop/measure/reporter.hpp"
#include "openloop/results/rebuild.hpp"
#include "reporter_replay.hpp"

#include <boost/json/parse.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_reporter)

using namespace openloop;
using namespace reporter_test;

BOOST_AUTO_TEST_CASE(latencies_count_from_the_intended_time) {
    std::vector<event> events;
    // Sent 1 ms late; a role-only delta is never pushed as a chunk, so the
    // first content chunk at +50 ms is the first token.
    add_ok(events, 0, base, {{50, -1}, {60, -1}, {70, -1}});
    const run_stats s = replay(events);

    BOOST_TEST(s.completed == 1u);
    BOOST_TEST(s.started == 1u);
    BOOST_TEST(s.lag.count() == 1u);
    BOOST_TEST(mean_ms(s.lag) == 1.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(mean_ms(s.ttft) == 50.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(mean_ms(s.e2e) == 70.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(mean_ms(s.ttfb) == 5.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(mean_ms(s.ttft_from_send) == 49.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(mean_ms(s.e2e_from_send) == 69.0, boost::test_tools::tolerance(1e-9));
    // Three content chunks, no usage: output estimated from chunks.
    BOOST_TEST(s.total_output_tokens == 3);
    BOOST_TEST(s.output_estimated == 1u);
    BOOST_TEST(s.output_from_usage == 0u);
    // TPOT = (E2E − TTFT) / (tokens − 1) = 20 ms / 2.
    BOOST_TEST(s.tpot.count() == 1u);
    BOOST_TEST(mean_ms(s.tpot) == 10.0, boost::test_tools::tolerance(1e-9));
    // Token counts unknown: ITL falls back to the chunk intervals.
    BOOST_TEST(s.icl.count() == 2u);
    BOOST_TEST(s.itl.count() == 2u);
    BOOST_TEST(s.itl_chunk_samples == 2u);
    BOOST_TEST(s.itl_token_samples == 0u);
    BOOST_TEST(mean_ms(s.itl) == 10.0, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(itl_divides_a_chunk_over_the_tokens_it_carried) {
    std::vector<event> events;
    // The second chunk carries 3 tokens 30 ms after the first: three 10 ms
    // samples; the third carries 1 token 4 ms later.
    add_ok(events, 0, base, {{100, 1}, {130, 3}, {134, 1}}, 5);
    const run_stats s = replay(events);

    BOOST_TEST(s.icl.count() == 2u);
    BOOST_TEST(s.icl.max() == 30 * ms_ns);
    BOOST_TEST(s.itl.count() == 4u);
    BOOST_TEST(s.itl_token_samples == 4u);
    BOOST_TEST(s.itl_chunk_samples == 0u);
    BOOST_TEST(s.itl.max() == 10 * ms_ns);
    BOOST_TEST(s.itl.min() == 4 * ms_ns);
    BOOST_TEST(s.itl.percentile(50) / 1e6 == 10.0, boost::test_tools::tolerance(0.001));
    // Usage says 5 tokens: it wins over the 3 chunks.
    BOOST_TEST(s.total_output_tokens == 5);
    BOOST_TEST(s.output_from_usage == 1u);
    BOOST_TEST(s.output_estimated == 0u);
    // TPOT = (134 − 100) / (5 − 1) = 8.5 ms.
    BOOST_TEST(mean_ms(s.tpot) == 8.5, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_CASE(tpot_needs_more_than_one_token) {
    std::vector<event> events;
    add_ok(events, 0, base, {{40, 1}}, 1);
    add_ok(events, 1, base + 1000 * ms_ns, {{40, -1}});
    const run_stats s = replay(events);
    BOOST_TEST(s.completed == 2u);
    BOOST_TEST(s.ttft.count() == 2u);
    BOOST_TEST(s.tpot.count() == 0u);
    BOOST_TEST(s.itl.count() == 0u);
}

BOOST_AUTO_TEST_CASE(a_completion_without_content_has_no_ttft) {
    std::vector<event> events;
    events.push_back(ev(event_kind::start, 0, base, 10, 16));
    events.push_back(ev(event_kind::sent, 0, base));
    events.push_back(ev(event_kind::headers, 0, base + 2 * ms_ns, 200));
    events.push_back(ev(event_kind::done, 0, base + 9 * ms_ns, -1, -1, -1));
    const run_stats s = replay(events);
    BOOST_TEST(s.completed == 1u);
    BOOST_TEST(s.ttft.count() == 0u);
    BOOST_TEST(s.e2e.count() == 0u);
    BOOST_TEST(s.total_output_tokens == 0);
    BOOST_TEST(s.output_estimated == 1u);
    BOOST_TEST(s.total_input_tokens == 10);
}

BOOST_AUTO_TEST_CASE(mixed_token_sources_are_counted_apart) {
    std::vector<event> events;
    add_ok(events, 0, base, {{10, 1}, {20, -1}}, 7);
    add_ok(events, 1, base + 100 * ms_ns, {{10, -1}, {20, -1}, {30, -1}});
    const run_stats s = replay(events);
    BOOST_TEST(s.output_from_usage == 1u);
    BOOST_TEST(s.output_estimated == 1u);
    BOOST_TEST(s.total_output_tokens == 7 + 3);
    BOOST_TEST(s.itl_token_samples == 0u);  // the only gaps have unknown counts
    BOOST_TEST(s.itl_chunk_samples == 3u);
}

BOOST_AUTO_TEST_CASE(warmup_requests_are_tracked_but_excluded) {
    std::vector<event> events;
    add_ok(events, 0, base, {{500, -1}, {900, -1}}, 40, 100, true);
    events.push_back(ev(event_kind::refused, 1, base + 1 * ms_ns, 0, 0, flag_warmup));
    add_ok(events, 2, base + 1000 * ms_ns, {{20, -1}, {30, -1}}, 2, 200);
    const run_stats s = replay(events);
    BOOST_TEST(s.warmup_started == 1u);
    BOOST_TEST(s.started == 1u);
    BOOST_TEST(s.completed == 1u);
    BOOST_TEST(s.refused == 0u);
    BOOST_TEST(s.ttft.count() == 1u);
    BOOST_TEST(s.lag.count() == 1u);
    BOOST_TEST(s.icl.count() == 1u);
    BOOST_TEST(s.ttft.max() == 20 * ms_ns);
    BOOST_TEST(s.total_output_tokens == 2);
    BOOST_TEST(s.total_input_tokens == 200);
    BOOST_TEST(s.first_intended_ns == base + 1000 * ms_ns);
    BOOST_TEST(s.by_input[1].completed == 1u);
    BOOST_TEST(s.by_input[0].completed == 0u);
}

BOOST_AUTO_TEST_CASE(failures_count_by_class_and_status_and_add_no_latency) {
    std::vector<event> events;
    const auto fail = [&](std::uint64_t i, error_class c, int status, bool with_chunk) {
        const std::int64_t t0 = base + static_cast<std::int64_t>(i) * 10 * ms_ns;
        events.push_back(ev(event_kind::start, i, t0, 50, 64));
        events.push_back(ev(event_kind::sent, i, t0 + 2 * ms_ns));
        if (with_chunk) {
            events.push_back(ev(event_kind::chunk, i, t0 + 20 * ms_ns, 1, 3));
            events.push_back(ev(event_kind::chunk, i, t0 + 30 * ms_ns, 1, 3));
        }
        events.push_back(ev(event_kind::failed, i, t0 + 40 * ms_ns, static_cast<int>(c), status));
    };
    fail(0, error_class::http_5xx, 503, false);
    fail(1, error_class::http_4xx, 429, false);
    fail(2, error_class::timeout_idle, 0, true);
    fail(3, error_class::http_4xx, 429, false);
    const run_stats s = replay(events);

    BOOST_TEST(s.failed == 4u);
    BOOST_TEST(s.completed == 0u);
    BOOST_TEST(s.failed_by_class[static_cast<int>(error_class::http_4xx)] == 2u);
    BOOST_TEST(s.failed_by_class[static_cast<int>(error_class::http_5xx)] == 1u);
    BOOST_TEST(s.failed_by_class[static_cast<int>(error_class::timeout_idle)] == 1u);
    BOOST_TEST_REQUIRE(s.http_status_counts.size() == 2u);
    BOOST_TEST(s.http_status_counts[0].first == 429);
    BOOST_TEST(s.http_status_counts[0].second == 2u);
    BOOST_TEST(s.http_status_counts[1].first == 503);
    BOOST_TEST(s.http_status_counts[1].second == 1u);
    BOOST_TEST(s.ttft.count() == 0u);
    BOOST_TEST(s.e2e.count() == 0u);
    BOOST_TEST(s.itl.count() == 0u);
    BOOST_TEST(s.icl.count() == 0u);
    BOOST_TEST(s.total_output_tokens == 0);
    // Lag measures the generator: every measured request that went out counts.
    BOOST_TEST(s.lag.count() == 4u);
    // The measured window ends at the last failure.
    BOOST_TEST(s.last_end_ns == base + 70 * ms_ns);
}

BOOST_AUTO_TEST_CASE(refused_requests_are_counted) {
    std::vector<event> events;
    add_ok(events, 0, base, {{10, -1}});
    events.push_back(ev(event_kind::refused, 1, base + 1 * ms_ns));
    events.push_back(ev(event_kind::refused, 2, base + 2 * ms_ns));
    const run_stats s = replay(events);
    BOOST_TEST(s.refused == 2u);
    BOOST_TEST(s.started == 1u);
    BOOST_TEST(s.completed == 1u);
}

// --max-concurrency: a request that waited for a slot counts its wait as queue time, its lag
// from the slot freeing, and its latency from its arrival as any other.
BOOST_AUTO_TEST_CASE(a_queued_request_waits_apart_from_its_lag) {
    temp_dir dir;
    reporter_options o;
    o.out_dir = dir.path.string();
    o.chunk_gaps = true;
    std::vector<event> events;
    add_ok(events, 0, base, {{10, 1}, {25, 1}}, 2);
    events.push_back(ev(event_kind::start, 1, base + 2 * ms_ns, 100, 256));
    events.push_back(ev(event_kind::released, 1, base + 12 * ms_ns));
    events.push_back(ev(event_kind::sent, 1, base + 12 * ms_ns + 300'000));
    events.push_back(ev(event_kind::chunk, 1, base + 40 * ms_ns, 1, 4));
    events.push_back(ev(event_kind::done, 1, base + 41 * ms_ns, 1, 100, -1));
    const run_stats s = replay(events, o);
    BOOST_TEST(s.queued == 1u);
    BOOST_TEST(s.queue.count() == 1u);
    BOOST_TEST(mean_ms(s.queue) == 10.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(s.lag.max() == 1 * ms_ns);  // request 0's 1 ms; request 1's 0.3 ms counts from its release
    BOOST_TEST(s.ttft.max() == 38 * ms_ns);  // from its arrival at +2 ms

    const auto lines = read_lines(dir.path / "requests.jsonl");
    BOOST_TEST_REQUIRE(lines.size() == 2u);
    const auto plain = boost::json::parse(lines[0]).as_object();
    BOOST_TEST(!plain.contains("queue_ms"));
    BOOST_TEST(!plain.contains("released_ns"));
    BOOST_TEST(plain.at("chunk_gaps_ms").as_array().size() == 1u);
    BOOST_TEST(plain.at("chunk_gaps_ms").as_array()[0].as_double() == 15.0, boost::test_tools::tolerance(1e-9));
    const auto queued = boost::json::parse(lines[1]).as_object();
    BOOST_TEST(queued.at("released_ns").as_int64() == base + 12 * ms_ns);
    BOOST_TEST(queued.at("queue_ms").as_double() == 10.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(queued.at("lag_ms").as_double() == 0.3, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(queued.at("ttft_ms").as_double() == 38.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(queued.at("chunk_gaps_ms").as_array().empty());
    // What merge, compare and report rebuild from the log: the same queue and lag.
    std::ifstream in(dir.path / "requests.jsonl");
    std::ostringstream text;
    text << in.rdbuf();
    const run_stats rebuilt = rebuild_stats(text.str()).stats;
    BOOST_TEST(rebuilt.queued == 1u);
    BOOST_TEST((rebuilt.queue == s.queue));
    BOOST_TEST((rebuilt.lag == s.lag));
}

BOOST_AUTO_TEST_CASE(goodput_needs_every_threshold) {
    reporter_options o;
    o.slo.ttft_ms = 100;
    o.slo.tpot_ms = 20;
    o.slo.itl_ms = 40;
    std::vector<event> events;
    add_ok(events, 0, base, {{50, 1}, {60, 1}, {70, 1}}, 3);             // good
    add_ok(events, 1, base + 1000 * ms_ns, {{150, 1}, {160, 1}}, 2);     // TTFT 150 > 100
    add_ok(events, 2, base + 2000 * ms_ns, {{50, 1}, {90, 1}}, 2);       // TPOT 40 > 20
    add_ok(events, 3, base + 3000 * ms_ns, {{10, 1}, {15, 1}, {16, 1}, {17, 1}, {18, 1}, {68, 1}, {69, 1}},
           7);                                                            // TPOT ~9.8, but a 50 ms gap > 40
    add_ok(events, 4, base + 4000 * ms_ns, {{10, 1}, {70, 3}, {71, 1}}, 5);  // 60 ms over 3 tokens: 20 each, ok
    const run_stats s = replay(events, o);
    BOOST_TEST(s.completed == 5u);
    BOOST_TEST(s.good == 2u);

    // No thresholds: every completed request is good.
    const run_stats all = replay(events);
    BOOST_TEST(all.good == 5u);
}

BOOST_AUTO_TEST_CASE(input_buckets) {
    BOOST_TEST(input_bucket(0) == 0);
    BOOST_TEST(input_bucket(127) == 0);
    BOOST_TEST(input_bucket(128) == 1);
    BOOST_TEST(input_bucket(1023) == 1);
    BOOST_TEST(input_bucket(1024) == 2);
    BOOST_TEST(input_bucket(4095) == 2);
    BOOST_TEST(input_bucket(4096) == 3);
    BOOST_TEST(input_bucket(1'000'000) == 3);

    std::vector<event> events;
    add_ok(events, 0, base, {{10, -1}}, -1, 5);
    add_ok(events, 1, base, {{30, -1}}, -1, 5000);
    add_ok(events, 2, base, {{50, -1}}, -1, 6000);
    const run_stats s = replay(events);
    BOOST_TEST(s.by_input[0].completed == 1u);
    BOOST_TEST(s.by_input[1].completed == 0u);
    BOOST_TEST(s.by_input[3].completed == 2u);
    BOOST_TEST(mean_ms(s.by_input[3].ttft) == 40.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(s.by_input[0].ttft.max() == 10 * ms_ns);
}

BOOST_AUTO_TEST_CASE(duration_spans_first_intended_to_last_end) {
    std::vector<event> events;
    add_ok(events, 0, base - 5000 * ms_ns, {{10, -1}}, -1, 10, true);  // warm-up: outside the window
    add_ok(events, 1, base, {{100, -1}, {200, -1}}, 4);                 // ends at +201 ms
    add_ok(events, 2, base + 500 * ms_ns, {{100, -1}, {1499, -1}}, 6);  // ends at +2000 ms
    const run_stats s = replay(events);
    BOOST_TEST(s.first_intended_ns == base);
    BOOST_TEST(s.last_end_ns == base + 2000 * ms_ns);
    BOOST_TEST(s.duration_s() == 2.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.max_inflight == 1u);

    const run_stats empty;
    BOOST_TEST(empty.duration_s() == 0.0);
}

BOOST_AUTO_TEST_CASE(max_inflight_counts_overlapping_requests) {
    std::vector<event> events;
    for (std::uint64_t i = 0; i < 3; ++i) {
        events.push_back(ev(event_kind::start, i, base + static_cast<std::int64_t>(i) * ms_ns, 1, 1));
    }
    for (std::uint64_t i = 0; i < 3; ++i) {
        events.push_back(ev(event_kind::done, i, base + 10 * ms_ns, -1, -1, -1));
    }
    events.push_back(ev(event_kind::start, 3, base + 20 * ms_ns, 1, 1));
    events.push_back(ev(event_kind::done, 3, base + 30 * ms_ns, -1, -1, -1));
    const run_stats s = replay(events);
    BOOST_TEST(s.max_inflight == 3u);
    BOOST_TEST(s.completed == 4u);
}

BOOST_AUTO_TEST_SUITE_END()
