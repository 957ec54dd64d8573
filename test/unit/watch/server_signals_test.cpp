#include <boost/test/unit_test.hpp>

#include "openloop/watch/server_signals.hpp"
#include "test_paths.hpp"

#include <fstream>
#include <optional>
#include <sstream>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_server_signals)

using namespace openloop;

namespace {

prom_scrape recorded(const std::string& name) {
    std::ifstream in(std::string(openloop_test::source_dir) + "/test/data/metrics/" + name, std::ios::binary);
    BOOST_TEST_REQUIRE(static_cast<bool>(in), "cannot read " << name);
    std::ostringstream s;
    s << in.rdbuf();
    return parse_prometheus_text(s.str());
}

std::optional<signal_value> get(const std::vector<signal_value>& v, std::string_view name) {
    for (const auto& s : v)
        if (s.name == name) return s;
    return std::nullopt;
}

double value(const std::vector<signal_value>& v, std::string_view name) {
    const auto s = get(v, name);
    BOOST_TEST_REQUIRE(s.has_value(), "no signal " << name);
    return s->value;
}

}  // namespace

BOOST_AUTO_TEST_CASE(llama_server_gauges_and_no_rates_without_a_previous_scrape) {
    const auto now = recorded("llama_server.txt");
    const auto s = select_signals(now, nullptr, 0, {});
    BOOST_TEST(value(s, "running") == 0.0);
    BOOST_TEST(value(s, "waiting") == 0.0);
    BOOST_TEST(value(s, "kv_usage") == 0.0214844);
    BOOST_TEST(get(s, "kv_usage")->unit == "fraction");
    BOOST_TEST(!get(s, "generation_tokens_per_s"));
    BOOST_TEST(!get(s, "server_rss_bytes"));
    const auto t = counter_totals(now);
    BOOST_TEST(value(t, "prompt_tokens") == 15.0);
    BOOST_TEST(value(t, "generation_tokens") == 48.0);
    BOOST_TEST(!get(t, "preemptions"));
}

BOOST_AUTO_TEST_CASE(llama_server_rates_between_two_scrapes) {
    const auto before = recorded("llama_server.txt");
    const auto now = parse_prometheus_text(
        "llamacpp:prompt_tokens_total 35\nllamacpp:tokens_predicted_total 148\nllamacpp:requests_processing 2\n");
    const auto s = select_signals(now, &before, 4.0, {});
    BOOST_TEST(value(s, "prompt_tokens_per_s") == 5.0);
    BOOST_TEST(value(s, "generation_tokens_per_s") == 25.0);
    BOOST_TEST(get(s, "generation_tokens_per_s")->unit == "tokens/s");
    BOOST_TEST(value(s, "running") == 2.0);
    BOOST_TEST(!get(s, "kv_usage"));  // not in the later scrape: absent, not stale
}

BOOST_AUTO_TEST_CASE(vllm_v1_kv_usage_wins_over_the_old_name) {
    const auto s = select_signals(parse_prometheus_text("vllm:gpu_cache_usage_perc{engine=\"0\"} 0.9\n"
                                                        "vllm:kv_cache_usage_perc{engine=\"0\"} 0.25\n"
                                                        "vllm:kv_cache_usage_perc{engine=\"1\"} 0.75\n"),
                                  nullptr, 0, {});
    BOOST_TEST(value(s, "kv_usage") == 0.5);  // a mean over engines: fractions do not add
    const auto glm = select_signals(recorded("vllm_v0_10_glm45.txt"), nullptr, 0, {});
    BOOST_TEST(value(glm, "kv_usage") == 9.75010481363281e-06);
    const auto qwen = select_signals(recorded("vllm_v0_7_qwen_coder.txt"), nullptr, 0, {});
    BOOST_TEST(value(qwen, "kv_usage") == 0.0);
    BOOST_TEST(value(qwen, "running") == 0.0);
}

BOOST_AUTO_TEST_CASE(sums_over_label_sets) {
    const auto s = select_signals(parse_prometheus_text("vllm:num_requests_running{model_name=\"a\"} 3\n"
                                                        "vllm:num_requests_running{model_name=\"b\"} 4\n"
                                                        "vllm:num_requests_waiting{model_name=\"a\"} NaN\n"
                                                        "vllm:num_requests_waiting{model_name=\"b\"} 2\n"),
                                  nullptr, 0, {});
    BOOST_TEST(value(s, "running") == 7.0);
    BOOST_TEST(value(s, "waiting") == 2.0);  // NaN left out
}

BOOST_AUTO_TEST_CASE(prefix_hit_rate_over_the_window) {
    const auto before = parse_prometheus_text(
        "vllm:prefix_cache_queries_total 1000\nvllm:prefix_cache_hits_total 100\nvllm:gpu_prefix_cache_hit_rate 0.9\n");
    const auto now = parse_prometheus_text(
        "vllm:prefix_cache_queries_total 3000\nvllm:prefix_cache_hits_total 1100\nvllm:gpu_prefix_cache_hit_rate 0.9\n");
    BOOST_TEST(value(select_signals(now, &before, 10, {}), "prefix_hit_rate") == 0.5);
    // Counters present but no earlier scrape: no rate, and not the gauge either.
    BOOST_TEST(!get(select_signals(now, nullptr, 0, {}), "prefix_hit_rate"));
    // No queries in the window: undefined, absent.
    BOOST_TEST(!get(select_signals(now, &now, 10, {}), "prefix_hit_rate"));
    // Only the old gauge: taken as it is.
    const auto gauge = parse_prometheus_text("sglang:cache_hit_rate 0.25\n");
    BOOST_TEST(value(select_signals(gauge, nullptr, 0, {}), "prefix_hit_rate") == 0.25);
    const auto t = counter_totals(now);
    BOOST_TEST(value(t, "prefix_cache_hits") == 1100.0);
    BOOST_TEST(value(t, "prefix_cache_queries") == 3000.0);
}

BOOST_AUTO_TEST_CASE(a_counter_reset_counts_from_zero) {
    const auto before = parse_prometheus_text("vllm:num_preemptions_total 500\n");
    const auto now = parse_prometheus_text("vllm:num_preemptions_total 20\n");
    BOOST_TEST(value(select_signals(now, &before, 10, {}), "preemptions_per_s") == 2.0);
    BOOST_TEST(value(counter_totals(now), "preemptions") == 20.0);
}

BOOST_AUTO_TEST_CASE(sglang_counters_and_usage) {
    const auto before = recorded("sglang_v0_3_counters.txt");
    const auto now = parse_prometheus_text(
        "sglang:prompt_tokens_total{name=\"m\"} 231794.0\nsglang:token_usage{name=\"m\"} 0.5\n"
        "sglang:num_running_reqs{name=\"m\"} 9\nsglang:num_queue_reqs{name=\"m\"} 1\n");
    const auto s = select_signals(now, &before, 2.0, {});
    BOOST_TEST(value(s, "prompt_tokens_per_s") == 500.0);
    BOOST_TEST(value(s, "kv_usage") == 0.5);
    BOOST_TEST(value(s, "running") == 9.0);
    BOOST_TEST(value(s, "waiting") == 1.0);
    BOOST_TEST(value(select_signals(recorded("sglang_v0_4_running.txt"), nullptr, 0, {}), "running") == 0.0);
}

BOOST_AUTO_TEST_CASE(gpu_memory_from_dcgm_and_bytes_exporters) {
    const auto s = select_signals(recorded("dcgm_exporter_a30_mig.txt"), nullptr, 0, {});
    BOOST_TEST(value(s, "gpu_memory_used_mib") == 18.0);  // six MIG instances of 3 MiB
    BOOST_TEST(get(s, "gpu_memory_used_mib")->unit == "MiB");
    const auto b = select_signals(parse_prometheus_text("nvidia_smi_memory_used_bytes{uuid=\"a\"} 1073741824\n"
                                                        "nvidia_smi_memory_used_bytes{uuid=\"b\"} 1073741824\n"),
                                  nullptr, 0, {});
    BOOST_TEST(value(b, "gpu_memory_used_mib") == 2048.0);
}

BOOST_AUTO_TEST_CASE(server_rss) {
    const auto s = select_signals(parse_prometheus_text("process_resident_memory_bytes 1.109622784e+09\n"), nullptr, 0, {});
    BOOST_TEST(value(s, "server_rss_bytes") == 1109622784.0);
    BOOST_TEST(get(s, "server_rss_bytes")->unit == "bytes");
}

BOOST_AUTO_TEST_CASE(extra_metrics_gauge_counter_and_histogram_mean) {
    const auto before = parse_prometheus_text(
        "# TYPE my_gauge gauge\nmy_gauge{a=\"1\"} 1\nmy_gauge{a=\"2\"} 2\n"
        "# TYPE req counter\nreq_total 100\n"
        "# TYPE raw counter\nraw 10\n"
        "# TYPE ttft histogram\nttft_bucket{le=\"+Inf\"} 10\nttft_sum 5\nttft_count 10\n");
    const auto now = parse_prometheus_text(
        "# TYPE my_gauge gauge\nmy_gauge{a=\"1\"} 4\nmy_gauge{a=\"2\"} 5\n"
        "# TYPE req counter\nreq_total 160\n"
        "# TYPE raw counter\nraw 40\n"
        "# TYPE ttft histogram\nttft_bucket{le=\"+Inf\"} 30\nttft_sum 15\nttft_count 30\n");
    const std::vector<std::string> extra{"my_gauge", "req", "raw", "ttft", "missing"};
    const auto s = select_signals(now, &before, 30, extra);
    BOOST_TEST(value(s, "my_gauge") == 9.0);
    BOOST_TEST(value(s, "req") == 2.0);
    BOOST_TEST(get(s, "req")->unit == "1/s");
    BOOST_TEST(value(s, "raw") == 1.0);
    BOOST_TEST(value(s, "ttft") == 0.5);  // (15-5)/(30-10)
    BOOST_TEST(get(s, "ttft")->unit == "mean");
    BOOST_TEST(!get(s, "missing"));
    const auto first = select_signals(now, nullptr, 0, extra);
    BOOST_TEST(value(first, "my_gauge") == 9.0);
    BOOST_TEST(!get(first, "req"));
    BOOST_TEST(!get(first, "ttft"));
}

BOOST_AUTO_TEST_CASE(recorded_vllm_histogram_as_an_extra) {
    const auto before = recorded("vllm_v0_5_ttft_histogram.txt");
    const auto now = parse_prometheus_text(
        "vllm:time_to_first_token_seconds_sum{model_name=\"m\"} 40.5871782302856445\n"
        "vllm:time_to_first_token_seconds_count{model_name=\"m\"} 8160.0\n");
    const auto s = select_signals(now, &before, 60, {"vllm:time_to_first_token_seconds"});
    BOOST_TEST(value(s, "vllm:time_to_first_token_seconds") == 0.4, boost::test_tools::tolerance(1e-9));
}

BOOST_AUTO_TEST_SUITE_END()
