#define BOOST_TEST_MODULE report
#include <boost/test/unit_test.hpp>

#include "openloop/measure/reporter.hpp"
#include "openloop/results/report.hpp"

#include <boost/json/parse.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace openloop;

namespace {

constexpr std::int64_t ms_ns = 1'000'000;
constexpr std::int64_t base = 5'000'000 * ms_ns;

// A small healthy run: 10 requests over exactly 2 s, 1000 input and 50
// output tokens each (from usage), TTFT 100 ms, TPOT 20 ms, lag 0.1 ms.
run_stats healthy() {
    run_stats s;
    for (int i = 0; i < 10; ++i) {
        s.ttft.record(100 * ms_ns);
        s.tpot.record(20 * ms_ns);
        s.e2e.record(1080 * ms_ns);
        s.lag.record(ms_ns / 10);
        s.by_input[2].ttft.record(100 * ms_ns);
        s.by_input[2].tpot.record(20 * ms_ns);
        s.by_input[2].e2e.record(1080 * ms_ns);
        for (int t = 0; t < 49; ++t) {
            s.itl.record(20 * ms_ns);
            s.icl.record(20 * ms_ns);
        }
    }
    s.by_input[2].completed = 10;
    s.started = 10;
    s.completed = 10;
    s.good = 8;
    s.total_input_tokens = 10'000;
    s.total_output_tokens = 500;
    s.output_from_usage = 10;
    s.itl_token_samples = 490;
    s.first_intended_ns = base;
    s.last_end_ns = base + 2000 * ms_ns;
    s.max_inflight = 4;
    return s;
}

run_context open_loop() {
    run_context c;
    c.target = "http://127.0.0.1:8000/v1/chat/completions";
    c.request_rate = 5;
    c.config = boost::json::object{{"rate", 5}, {"api_key", "[redacted]"}};
    c.environment = boost::json::object{{"host", "test"}};
    return c;
}

double num(const boost::json::object& o, std::string_view key) {
    const auto& v = o.at(key);
    if (v.is_double()) {
        return v.get_double();
    }
    if (v.is_int64()) {
        return static_cast<double>(v.get_int64());
    }
    return static_cast<double>(v.as_uint64());
}

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string temp_path(const std::string& name) {
    return (std::filesystem::temp_directory_path() / ("openloop-report-test-" + std::to_string(::getpid()) + "-" + name))
        .string();
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_healthy_open_loop_run_is_valid) {
    const verdict v = judge(healthy(), open_loop());
    BOOST_TEST(v.valid);
    BOOST_TEST(v.reasons.empty());
}

BOOST_AUTO_TEST_CASE(lag_over_the_bound_invalidates_an_open_loop_run_only) {
    run_stats s = healthy();
    for (int i = 0; i < 10; ++i) {
        s.lag.record(5 * ms_ns);  // half the requests 5 ms late: p99 = 5 ms
    }
    run_context c = open_loop();
    const verdict v = judge(s, c);
    BOOST_TEST(!v.valid);
    BOOST_TEST_REQUIRE(v.reasons.size() == 1u);
    const auto at = v.reasons[0].find("lag p99 ");
    BOOST_TEST_REQUIRE(at != std::string::npos, v.reasons[0]);
    BOOST_TEST(std::stod(v.reasons[0].substr(at + 8)) == 5.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(v.reasons[0].find("1 ms bound") != std::string::npos, v.reasons[0]);

    c.lag_bound_ms = 10;
    BOOST_TEST(judge(s, c).valid);

    c.lag_bound_ms = 1;
    c.mode = "closed-loop";  // no schedule, so nothing to lag behind
    BOOST_TEST(judge(s, c).valid);
}

BOOST_AUTO_TEST_CASE(lost_events_nothing_completed_and_partial_are_invalid) {
    run_stats lost = healthy();
    lost.lost_events = 3;
    const verdict v1 = judge(lost, open_loop());
    BOOST_TEST(!v1.valid);
    BOOST_TEST_REQUIRE(v1.reasons.size() == 1u);
    BOOST_TEST(v1.reasons[0].find("3 events lost") != std::string::npos, v1.reasons[0]);

    run_stats none;
    none.failed = 7;
    const verdict v2 = judge(none, open_loop());
    BOOST_TEST(!v2.valid);
    BOOST_TEST_REQUIRE(v2.reasons.size() == 1u);
    BOOST_TEST(v2.reasons[0].find("no request completed (7 failed") != std::string::npos, v2.reasons[0]);

    run_context cut = open_loop();
    cut.partial = true;
    cut.partial_reason = "SIGINT";
    const verdict v3 = judge(healthy(), cut);
    BOOST_TEST(!v3.valid);
    BOOST_TEST_REQUIRE(v3.reasons.size() == 1u);
    BOOST_TEST(v3.reasons[0] == "run cut short: SIGINT");
}

BOOST_AUTO_TEST_CASE(summary_has_the_vllm_keys_and_values) {
    const auto s = make_summary(healthy(), open_loop());
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
    const auto s = make_summary(st, c);

    BOOST_TEST(s.at("errors").as_object().size() == 2u);
    BOOST_TEST(num(s.at("errors").as_object(), "http_5xx") == 3.0);
    BOOST_TEST(num(s.at("errors").as_object(), "timeout_idle") == 2.0);
    BOOST_TEST(num(s.at("http_status").as_object(), "503") == 2.0);
    BOOST_TEST(num(s, "error_rate") == 5.0 / 15.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "refused") == 4.0);
    BOOST_TEST(num(s, "unfinished") == 1.0);
    BOOST_TEST(num(s, "warmup_requests") == 6.0);
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
    const auto s2 = make_summary(only_chunks, open_loop());
    BOOST_TEST(s2.at("output_tokens_source").as_string() == "chunks");
    BOOST_TEST(s2.at("itl_source").as_string() == "chunks");
}

BOOST_AUTO_TEST_CASE(summary_histograms_merge_back) {
    const run_stats st = healthy();
    const auto s = make_summary(st, open_loop());
    const auto& h = s.at("histograms").as_object();
    BOOST_TEST((histogram::from_json(h.at("ttft")) == st.ttft));
    BOOST_TEST((histogram::from_json(h.at("itl")) == st.itl));
    BOOST_TEST((histogram::from_json(h.at("e2el")) == st.e2e));
    BOOST_TEST((histogram::from_json(h.at("lag")) == st.lag));
    BOOST_TEST(h.size() == 10u);
}

BOOST_AUTO_TEST_CASE(the_table_starts_with_the_verdict) {
    run_stats s = healthy();
    s.lost_events = 2;
    s.failed = 1;
    s.failed_by_class[static_cast<int>(error_class::stream_truncated)] = 1;
    const std::string table = format_table(make_summary(s, open_loop()));
    BOOST_TEST(first_line(table) == "INVALID: 2 events lost to a full ring");
    BOOST_TEST(table.find("error rate     9.09 %") != std::string::npos, table);
    BOOST_TEST(table.find("stream_truncated") != std::string::npos);
    // Rows in order, each with its numbers.
    std::size_t at = 0;
    for (const char* row : {"\nTTFT ", "\nTPOT ", "\nITL ", "\nICL ", "\nE2E ", "\nlag ", "\nconnect "}) {
        const auto found = table.find(row, at);
        BOOST_TEST_REQUIRE(found != std::string::npos, row);
        at = found;
    }
    const auto ttft_row = table.substr(table.find("\nTTFT ") + 1, table.find('\n', table.find("\nTTFT ") + 1) -
                                                                       table.find("\nTTFT ") - 1);
    BOOST_TEST(ttft_row.find("100.0") != std::string::npos, ttft_row);
    // Only the non-empty input bucket is listed.
    BOOST_TEST(table.find("[1024, 4096)") != std::string::npos);
    BOOST_TEST(table.find("[0, 128)") == std::string::npos);

    const std::string ok = format_table(make_summary(healthy(), open_loop()));
    BOOST_TEST(first_line(ok) == "VALID");
    BOOST_TEST(ok.find("errors by class") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_table_reprints_from_a_stored_summary) {
    const std::string path = temp_path("summary.json");
    const auto summary = make_summary(healthy(), open_loop());
    write_json_file(path, summary);
    std::ifstream f(path);
    std::stringstream text;
    text << f.rdbuf();
    const auto back = boost::json::parse(text.str()).as_object();
    std::filesystem::remove(path);
    BOOST_TEST(back.at("histograms").at("ttft") == summary.at("histograms").at("ttft"));
    BOOST_TEST(num(back, "p99.9_ttft_ms") == num(summary, "p99.9_ttft_ms"));
    BOOST_TEST(format_table(back) == format_table(summary));
    // Pretty-printed: one key per line.
    BOOST_TEST(text.str().find("\n  \"duration\": 2.0,\n") != std::string::npos);

    // A summary missing most keys still prints.
    const std::string sparse = format_table(boost::json::object{{"completed", 3}});
    BOOST_TEST(first_line(sparse) == "INVALID: no verdict in the summary");
    BOOST_TEST(sparse.find("completed 3") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(write_json_file_names_the_path_it_cannot_write) {
    const std::string path = temp_path("missing-dir") + "/summary.json";
    try {
        write_json_file(path, boost::json::object{{"a", 1}});
        BOOST_FAIL("write_json_file should have thrown");
    } catch (const std::runtime_error& e) {
        BOOST_TEST(std::string(e.what()).find(path) != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_CASE(pretty_json_is_plain_and_round_trips) {
    const boost::json::value v = boost::json::object{
        {"n", 15.0}, {"i", -3}, {"s", "a\"b"}, {"e", boost::json::object{}}, {"a", {1, 2, 3}}, {"z", nullptr}};
    const std::string text = pretty_json(v);
    BOOST_TEST(text.find("\"n\": 15.0") != std::string::npos, text);
    BOOST_TEST(text.find("\"a\": [1, 2, 3]") != std::string::npos, text);
    BOOST_TEST(text.find("\"e\": {}") != std::string::npos, text);
    BOOST_TEST(boost::json::parse(text) == v);

    const std::string line = compact_json(v);
    BOOST_TEST(line.find('\n') == std::string::npos);
    BOOST_TEST(line.find("\"n\":15.0,") != std::string::npos, line);
    BOOST_TEST(compact_json(boost::json::value(4e-5)) == "4e-05");
    BOOST_TEST(boost::json::parse(line) == v);
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
    const auto s = make_summary(rep.stats(), open_loop());
    BOOST_TEST(num(s, "duration") == 1.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "request_throughput") == 4.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(num(s, "request_goodput") == 3.0, boost::test_tools::tolerance(1e-12));  // TTFT 70 ms misses 60
    BOOST_TEST(num(s, "output_throughput") == 8.0, boost::test_tools::tolerance(1e-12));
    BOOST_TEST(s.at("output_tokens_source").as_string() == "usage");
    BOOST_TEST(first_line(format_table(s)) == "VALID");
}

// Failed requests above --max-error-rate fail the run, with the classes named
// in the first line; at or under the bound the run stays valid.
BOOST_AUTO_TEST_CASE(too_many_errors_fail_the_run_and_name_their_classes) {
    run_stats s = healthy();  // 10 completed
    s.failed = 8;
    s.failed_by_class[static_cast<std::size_t>(error_class::stream_truncated)] = 6;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 2;
    run_context c = open_loop();
    const verdict v = judge(s, c);
    BOOST_TEST(!v.valid);
    BOOST_TEST_REQUIRE(!v.reasons.empty());
    BOOST_TEST(v.reasons[0] == "error rate 44.44 % exceeds the 1 % bound (6 stream_truncated, 2 http_5xx)");
    const std::string table = format_table(make_summary(s, c));
    BOOST_TEST(table.rfind("INVALID: error rate 44.44 %", 0) == 0u, table);

    c.max_error_rate = 0.5;
    BOOST_TEST(judge(s, c).valid);
    BOOST_TEST(error_rate_breach(s, 0.5).empty());
    BOOST_TEST(!error_rate_breach(s, 0.44).empty());
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
    const auto summary = make_summary(s, c);
    const auto& f = summary.at("length_fidelity").as_object();
    BOOST_TEST(f.at("tokenizer").as_string() == "server (vllm chat template)");
    BOOST_TEST(f.at("input").as_object().at("exact_fraction").as_double() == 0.9);
    BOOST_TEST(std::abs(f.at("input").as_object().at("ratio").as_double() - 1562.0 / 1280) < 1e-12);
    BOOST_TEST(f.at("output").as_object().at("ratio").as_double() == 0.96);
    const std::string table = format_table(summary);
    BOOST_TEST(table.find("90.0 % exact as the server counted (9 of 10), server/intended 1.220") != std::string::npos, table);
}

// Requests openloop cancelled itself (the drain or the grace ran out) are
// not the server's failures and do not count against --max-error-rate.
BOOST_AUTO_TEST_CASE(own_cancellations_are_not_server_errors) {
    run_stats s = healthy();
    s.failed = 5;
    s.failed_by_class[static_cast<std::size_t>(error_class::cancelled)] = 5;
    BOOST_TEST(error_rate_breach(s, 0.01).empty());
    s.failed = 6;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 1;
    BOOST_TEST(error_rate_breach(s, 0.01) == "error rate 9.09 % exceeds the 1 % bound (1 http_5xx)");
}
