#include <boost/test/unit_test.hpp>

#include "openloop/measure/reporter.hpp"
#include "openloop/results/summary_json.hpp"
#include "openloop/results/table.hpp"
#include "run_fixtures.hpp"

#include <cmath>
#include <string>
#include <thread>

BOOST_AUTO_TEST_SUITE(unit_summary_json)

using namespace openloop;
using namespace run_fixtures;

BOOST_AUTO_TEST_CASE(summary_has_the_vllm_keys_and_values) {
    const auto s = summary_json(make_run_result(healthy(), open_loop()));
    for (const char* k : {"duration", "completed", "failed", "total_input_tokens", "total_output_tokens",
                          "request_throughput", "request_goodput", "output_throughput", "total_token_throughput",
                          "max_concurrency", "request_rate", "burstiness"}) {
        BOOST_TEST(s.contains(k), k);
    }
    for (const char* fam : {"ttft", "tpot", "itl", "e2el", "icl", "lag", "connect", "ttfb", "ttft_from_send",
                            "e2el_from_send"}) {
        for (const char* stat : {"mean", "median", "std", "p50", "p90", "p95", "p99", "p99.9", "min", "max"}) {
            const std::string key = std::string(stat) + "_" + fam + "_ms";
            BOOST_TEST(s.contains(key), key);
        }
    }
    BOOST_TEST(num(s, "duration") == 2.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "completed") == 10.0);
    BOOST_TEST(num(s, "request_throughput") == 5.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "request_goodput") == 4.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "output_throughput") == 250.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "total_token_throughput") == 5250.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "request_rate") == 5.0);
    BOOST_TEST(s.at("max_concurrency").is_null());
    BOOST_TEST(num(s, "mean_ttft_ms") == 100.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(num(s, "p99_tpot_ms") == 20.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(num(s, "median_e2el_ms") == 1080.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(num(s, "min_lag_ms") == 0.1, boost::test_tools::tolerance(1e-9));
    // No connect samples: null, not a 0 ms that never happened.
    BOOST_TEST(s.at("mean_connect_ms").is_null());
    BOOST_TEST(s.at("output_tokens_source").as_string() == "usage");
    BOOST_TEST(s.at("itl_source").as_string() == "tokens");
    BOOST_TEST(s.at("validity").at("valid").as_bool());
    BOOST_TEST(s.at("config").at("api_key").as_string() == "[redacted]");
    BOOST_TEST(s.at("environment").at("host").as_string() == "test");
    BOOST_TEST(s.at("mode").as_string() == "open-loop");
    BOOST_TEST(!s.at("partial").as_bool());
    BOOST_TEST(s.at("aliases").at("tpot").at("aiperf").as_string() == "inter_token_latency");
}

BOOST_AUTO_TEST_CASE(summary_counts_errors_sources_and_buckets) {
    run_stats st = healthy();
    st.failed = 5;
    st.failed_by_class[static_cast<int>(error_class::http_5xx)] = 3;
    st.failed_by_class[static_cast<int>(error_class::timeout_idle)] = 2;
    st.http_status_counts = {{500, 1}, {503, 2}};
    st.refused = 4;
    st.unfinished = 1;
    st.warmup_started = 6;
    st.output_estimated = 2;
    st.itl_chunk_samples = 3;
    st.cached_prompt_tokens = 640;
    run_context c = open_loop();
    c.request_rate = 0;
    c.max_concurrency = 16;
    c.skipped = 3;
    const auto s = summary_json(make_run_result(st, c));

    BOOST_TEST(s.at("errors").as_object().size() == 2u);
    BOOST_TEST(num(s.at("errors").as_object(), "http_5xx") == 3.0);
    BOOST_TEST(num(s.at("errors").as_object(), "timeout_idle") == 2.0);
    BOOST_TEST(num(s.at("http_status").as_object(), "503") == 2.0);
    BOOST_TEST(num(s, "error_rate") == 5.0 / 15.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "refused") == 4.0);
    BOOST_TEST(num(s, "unfinished") == 1.0);
    BOOST_TEST(num(s, "warmup_requests") == 6.0);
    BOOST_TEST(num(s, "skipped") == 3.0);
    BOOST_TEST(num(s, "cached_prompt_tokens") == 640.0);
    BOOST_TEST(s.at("output_tokens_source").as_string() == "mixed");
    BOOST_TEST(s.at("itl_source").as_string() == "mixed");
    BOOST_TEST(s.at("request_rate").as_string() == "inf");
    BOOST_TEST(num(s, "max_concurrency") == 16.0);

    const auto& buckets = s.at("by_input_length").as_array();
    BOOST_TEST_REQUIRE(buckets.size() == 4u);
    const auto& b2 = buckets[2].as_object();
    BOOST_TEST(b2.at("range").as_string() == "[1024, 4096)");
    BOOST_TEST(num(b2, "min_input_tokens") == 1024.0);
    BOOST_TEST(num(b2, "max_input_tokens") == 4095.0);
    BOOST_TEST(num(b2, "completed") == 10.0);
    BOOST_TEST(num(b2, "mean_ttft_ms") == 100.0, boost::test_tools::tolerance(1e-9));
    BOOST_TEST(num(b2, "p99_e2el_ms") == 1080.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(buckets[0].at("mean_ttft_ms").is_null());
    BOOST_TEST(buckets[3].at("max_input_tokens").is_null());

    run_stats only_chunks = healthy();
    only_chunks.output_from_usage = 0;
    only_chunks.output_estimated = 10;
    only_chunks.itl_token_samples = 0;
    only_chunks.itl_chunk_samples = 490;
    const auto s2 = summary_json(make_run_result(only_chunks, open_loop()));
    BOOST_TEST(s2.at("output_tokens_source").as_string() == "chunks");
    BOOST_TEST(s2.at("itl_source").as_string() == "chunks");
}

BOOST_AUTO_TEST_CASE(summary_histograms_merge_back) {
    const run_stats st = healthy();
    const auto s = summary_json(make_run_result(st, open_loop()));
    const auto& h = s.at("histograms").as_object();
    BOOST_TEST((histogram::from_json(h.at("ttft")) == st.ttft));
    BOOST_TEST((histogram::from_json(h.at("itl")) == st.itl));
    BOOST_TEST((histogram::from_json(h.at("e2el")) == st.e2e));
    BOOST_TEST((histogram::from_json(h.at("lag")) == st.lag));
    BOOST_TEST(h.size() == latency_families.size());
}

// The summary says whether the server saw the lengths that were asked for.
BOOST_AUTO_TEST_CASE(length_fidelity_compares_intended_with_the_server) {
    run_stats s = healthy();
    s.prompt_checked = 10;
    s.prompt_exact = 9;
    s.prompt_intended_tokens = 1280;
    s.server_prompt_tokens = 1562;
    s.output_requested_tokens = 500;
    s.total_output_tokens = 480;
    s.output_at_max = 8;
    run_context c = open_loop();
    c.tokenizer = "server (vllm chat template)";
    const auto summary = summary_json(make_run_result(s, c));
    const auto& f = summary.at("length_fidelity").as_object();
    BOOST_TEST(f.at("tokenizer").as_string() == "server (vllm chat template)");
    BOOST_TEST(f.at("input").as_object().at("exact_fraction").as_double() == 0.9);
    BOOST_TEST(std::abs(f.at("input").as_object().at("ratio").as_double() - 1562.0 / 1280) < 1e-12);
    BOOST_TEST(f.at("output").as_object().at("ratio").as_double() == 0.96);
    const std::string table = format_table(make_run_result(s, c));
    BOOST_TEST(table.find("90.0 % exact as the server counted (9 of 10), server/intended 1.220") != std::string::npos, table);
}

BOOST_AUTO_TEST_CASE(end_to_end_through_a_reporter) {
    // The reporter's stats feed the summary directly; goodput and throughput
    // come from the same measured window.
    spsc_ring<event> ring(8);
    reporter_options o;
    o.follow_clock = false;
    o.slo.ttft_ms = 60;
    reporter rep(ring, o);
    rep.start();
    const auto push = [&](event_kind k, std::uint64_t i, std::int64_t t, int a = 0, int b = 0, std::int64_t v = 0) {
        event e;
        e.kind = k;
        e.request = i;
        e.t_ns = t;
        e.a = a;
        e.b = b;
        e.v = v;
        while (!ring.try_push(e)) {
            std::this_thread::yield();
        }
    };
    for (std::uint64_t i = 0; i < 4; ++i) {
        const std::int64_t t0 = base + static_cast<std::int64_t>(i) * 250 * ms_ns;
        push(event_kind::start, i, t0, 10, 16);
        push(event_kind::sent, i, t0);
        push(event_kind::chunk, i, t0 + static_cast<std::int64_t>(40 + 10 * i) * ms_ns, 1, 4);  // TTFT 40..70 ms
        push(event_kind::chunk, i, t0 + 100 * ms_ns, 1, 4);
        push(event_kind::done, i, t0 + 250 * ms_ns, 2, 10, 0);
    }
    rep.finish();
    const run_result result = make_run_result(rep.stats(), open_loop());
    const auto s = summary_json(result);
    BOOST_TEST(num(s, "duration") == 1.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "request_throughput") == 4.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "request_goodput") == 3.0, boost::test_tools::tolerance(1e-12));  // TTFT 70 ms misses 60
    BOOST_TEST(num(s, "output_throughput") == 8.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.at("output_tokens_source").as_string() == "usage");
    BOOST_TEST(format_table(result).rfind("VALID\n", 0) == 0u);
}

// What `openloop report` takes for a summary: one it could have written.
BOOST_AUTO_TEST_CASE(an_unreadable_summary_is_named_with_why) {
    BOOST_TEST(!summary_problem(boost::json::serialize(summary_json(make_run_result(healthy(), open_loop())))));
    BOOST_TEST(summary_problem("").value() == "empty");
    BOOST_TEST(summary_problem(" \n").value() == "empty");
    const auto torn = summary_problem("{\n\"validity\": {\"valid\": tr");
    BOOST_TEST(torn.value().rfind("not JSON: ", 0) == 0u, *torn);
    BOOST_TEST(torn->find(" at line 2") != std::string::npos, *torn);
    BOOST_TEST(summary_problem("{\"a\": 1}\n}garbage").value().find(" at line 2") != std::string::npos);
    BOOST_TEST(summary_problem("[1, 2]").value() == "not a JSON object");
    BOOST_TEST(summary_problem("{\"completed\": 3}").value() == "no \"validity\": not an openloop summary");
    BOOST_TEST(!summary_problem("{\"validity\": {\"valid\": false, \"reasons\": []}}"));
    // A histogram merge and report.html cannot read back: its counts past 2^64.
    boost::json::object overflowing = summary_json(make_run_result(healthy(), open_loop()));
    overflowing["histograms"].as_object()["e2el"].as_object()["counts"] =
        boost::json::array{std::uint64_t{1} << 63, std::uint64_t{1} << 63, 1};
    BOOST_TEST(summary_problem(boost::json::serialize(overflowing)).value_or("") ==
               "histograms.e2el: histogram JSON: field 'counts' sums past 2^64");
}

BOOST_AUTO_TEST_SUITE_END()
