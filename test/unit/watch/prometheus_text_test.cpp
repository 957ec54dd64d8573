#include <boost/test/unit_test.hpp>

#include "openloop/watch/prometheus_text.hpp"
#include "test_paths.hpp"
#include "printing.hpp"

#include <chrono>
#include <cmath>
#include <fstream>
#include <ostream>
#include <sstream>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_prometheus_text)

using namespace openloop;

namespace {

std::string recorded(const std::string& name) {
    std::ifstream in(std::string(openloop_test::source_dir) + "/test/data/metrics/" + name, std::ios::binary);
    BOOST_TEST_REQUIRE(static_cast<bool>(in), "cannot read " << name);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

const prom_sample* find(const prom_scrape& s, std::string_view name, std::string_view label = {},
                        std::string_view label_value = {}) {
    for (const auto& x : s.samples) {
        if (x.name != name) continue;
        if (label.empty()) return &x;
        for (const auto& [k, v] : x.labels)
            if (k == label && v == label_value) return &x;
    }
    return nullptr;
}

std::string label(const prom_sample& s, std::string_view key) {
    for (const auto& [k, v] : s.labels)
        if (k == key) return v;
    return "<none>";
}

}  // namespace

BOOST_AUTO_TEST_CASE(llama_server_recorded) {
    const auto s = parse_prometheus_text(recorded("llama_server.txt"));
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.families.size() == 12u);
    BOOST_TEST(s.samples.size() == 12u);
    BOOST_REQUIRE(find(s, "llamacpp:tokens_predicted_total") != nullptr);
    BOOST_TEST(find(s, "llamacpp:tokens_predicted_total")->value == 48.0);
    BOOST_TEST(find(s, "llamacpp:kv_cache_usage_ratio")->value == 0.0214844);
    BOOST_TEST(find(s, "llamacpp:kv_cache_tokens")->labels.empty());
    BOOST_TEST(type_of(s, "llamacpp:prompt_tokens_total") == prom_type::counter);
    BOOST_TEST(type_of(s, "llamacpp:requests_processing") == prom_type::gauge);
    BOOST_TEST(find_family(s, "llamacpp:kv_cache_usage_ratio")->help == "KV-cache usage. 1 means 100 percent usage.");
}

BOOST_AUTO_TEST_CASE(vllm_v1_with_created_series) {
    const auto s = parse_prometheus_text(recorded("vllm_v0_10_glm45.txt"));
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.families.size() == 5u);
    const auto* kv = find(s, "vllm:kv_cache_usage_perc");
    BOOST_REQUIRE(kv != nullptr);
    BOOST_TEST(kv->value == 9.75010481363281e-06);
    BOOST_TEST(label(*kv, "engine") == "0");
    BOOST_TEST(label(*kv, "model_name") == "zai-org/GLM-4.5");
    BOOST_TEST(find(s, "vllm:prefix_cache_queries_total")->value == 32.0);
    BOOST_TEST(find(s, "vllm:gpu_prefix_cache_hits_created")->value == 1.7537953269353123e+09);
    // prometheus_client names some counter families with their _total.
    BOOST_TEST(type_of(s, "vllm:gpu_prefix_cache_hits_total") == prom_type::counter);
    BOOST_TEST(type_of(s, "vllm:gpu_prefix_cache_queries_created") == prom_type::gauge);
}

BOOST_AUTO_TEST_CASE(vllm_v0_process_metrics) {
    const auto s = parse_prometheus_text(recorded("vllm_v0_7_qwen_coder.txt"));
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.samples.size() == 7u);
    BOOST_TEST(find(s, "process_cpu_seconds_total")->value == 439.71999999999997);
    BOOST_TEST(find(s, "process_max_fds")->value == 1048576.0);
    BOOST_TEST(label(*find(s, "vllm:gpu_cache_usage_perc"), "model_name") == "Qwen/Qwen2.5-Coder-32B-Instruct");
}

BOOST_AUTO_TEST_CASE(vllm_histogram_inf_bucket_is_its_count) {
    const auto s = parse_prometheus_text(recorded("vllm_v0_5_ttft_histogram.txt"));
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.samples.size() == 12u);
    const auto* inf = find(s, "vllm:time_to_first_token_seconds_bucket", "le", "+Inf");
    BOOST_REQUIRE(inf != nullptr);
    BOOST_TEST(inf->value == find(s, "vllm:time_to_first_token_seconds_count")->value);
    BOOST_TEST(inf->value == 8060.0);
    BOOST_TEST(find(s, "vllm:time_to_first_token_seconds_sum")->value == 0.5871782302856445);
    BOOST_TEST(type_of(s, "vllm:time_to_first_token_seconds_bucket") == prom_type::untyped);  // no # TYPE in the paste
}

BOOST_AUTO_TEST_CASE(sglang_recorded) {
    const auto a = parse_prometheus_text(recorded("sglang_v0_4_running.txt"));
    BOOST_TEST(a.bad_lines == 0u);
    BOOST_TEST(a.samples.size() == 3u);
    BOOST_TEST(a.families.size() == 4u);  // gen_throughput: HELP and TYPE, no sample
    BOOST_TEST(label(*find(a, "sglang:token_usage"), "engine_type") == "unified");
    const auto b = parse_prometheus_text(recorded("sglang_v0_3_counters.txt"));
    BOOST_TEST(b.bad_lines == 0u);
    BOOST_TEST(find(b, "sglang:prompt_tokens_total")->value == 230794.0);
    BOOST_TEST(find(b, "sglang:context_len")->value == 131072.0);
}

BOOST_AUTO_TEST_CASE(dcgm_recorded) {
    const auto s = parse_prometheus_text(recorded("dcgm_exporter_a30_mig.txt"));
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.samples.size() == 6u);
    BOOST_TEST(s.samples[4].labels.size() == 7u);
    BOOST_TEST(label(s.samples[4], "UUID") == "GPU-2d20791a-b4a6-ba59-97f1-e95b99fe5b49");
    BOOST_TEST(label(s.samples[4], "GPU_I_PROFILE") == "1g.6gb");
    BOOST_TEST(type_of(s, "DCGM_FI_DEV_FB_USED") == prom_type::gauge);
}

BOOST_AUTO_TEST_CASE(label_escapes_commas_and_braces_in_quotes) {
    const auto s = parse_prometheus_text(
        "m{path=\"C:\\\\dir\",q=\"say \\\"hi\\\"\",nl=\"a\\nb\",odd=\"x,y}{z\",} 1\n");
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_REQUIRE(s.samples.size() == 1u);
    const auto& m = s.samples[0];
    BOOST_TEST(m.labels.size() == 4u);
    BOOST_TEST(label(m, "path") == "C:\\dir");
    BOOST_TEST(label(m, "q") == "say \"hi\"");
    BOOST_TEST(label(m, "nl") == "a\nb");
    BOOST_TEST(label(m, "odd") == "x,y}{z");
    BOOST_TEST(m.value == 1.0);
}

BOOST_AUTO_TEST_CASE(help_escapes_and_types) {
    const auto s = parse_prometheus_text(
        "# HELP a Line one\\nline two \\\\ and \\q kept\n# TYPE a summary\n"
        "# TYPE b histogram\n# TYPE c counter\n# some other comment\n#\n");
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(find_family(s, "a")->help == "Line one\nline two \\ and \\q kept");
    BOOST_TEST(type_of(s, "a_sum") == prom_type::summary);
    BOOST_TEST(type_of(s, "a_bucket") == prom_type::untyped);  // summaries have no buckets
    BOOST_TEST(type_of(s, "b_bucket") == prom_type::histogram);
    BOOST_TEST(type_of(s, "b_created") == prom_type::histogram);
    BOOST_TEST(type_of(s, "c_total") == prom_type::counter);
    BOOST_TEST(type_of(s, "c_sum") == prom_type::untyped);
    BOOST_TEST(type_of(s, "nothing") == prom_type::untyped);
}

BOOST_AUTO_TEST_CASE(special_values_exponents_and_timestamps) {
    const auto s = parse_prometheus_text(
        "a NaN\nb +Inf\nc -Inf\nd 1.5e+03\ne -2E-2 1712345678901\nf 7 -5\ng\t3\t\nh{} 4\n");
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_REQUIRE(s.samples.size() == 8u);
    BOOST_TEST(std::isnan(s.samples[0].value));
    BOOST_TEST(s.samples[1].value == INFINITY);
    BOOST_TEST(s.samples[2].value == -INFINITY);
    BOOST_TEST(s.samples[3].value == 1500.0);
    BOOST_TEST(s.samples[4].value == -0.02);
    BOOST_TEST(s.samples[5].value == 7.0);
    BOOST_TEST(s.samples[6].value == 3.0);
    BOOST_TEST(s.samples[7].labels.empty());
}

BOOST_AUTO_TEST_CASE(crlf_blank_lines_no_final_newline_and_eof) {
    const auto s = parse_prometheus_text("\r\n# TYPE x gauge\r\nx 1\r\n\r\n   \ny{a=\"b\"} 2");
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_REQUIRE(s.samples.size() == 2u);
    BOOST_TEST(s.samples[1].value == 2.0);
    BOOST_TEST(type_of(s, "x") == prom_type::gauge);
    // OpenMetrics' # EOF ends the text: nothing after it is read.
    const auto e = parse_prometheus_text("a 1\n# EOF\nb 2\n");
    BOOST_TEST(e.samples.size() == 1u);
    BOOST_TEST(e.bad_lines == 0u);
}

BOOST_AUTO_TEST_CASE(colons_in_names) {
    const auto s = parse_prometheus_text("vllm:num_requests_running{model_name=\"m\"} 3\n:odd:name 1\n");
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.samples[0].name == "vllm:num_requests_running");
    BOOST_TEST(s.samples[1].name == ":odd:name");
}

BOOST_AUTO_TEST_CASE(bad_lines_counted_with_the_first_line_number) {
    const auto s = parse_prometheus_text(
        "good 1\n"
        "\n"
        "1bad 2\n"                    // 3: a name may not start with a digit
        "novalue\n"                   // 4
        "x{a=\"unterminated} 1\n"     // 5
        "x{a=\"b\" c=\"d\"} 1\n"      // 6: no comma between labels
        "x{a=\"\\t\"} 1\n"            // 7: an escape the format does not have
        "x 1 2 3\n"                   // 8: junk after the timestamp
        "x 1.2.3\n"                   // 9
        "# TYPE x fancy\n"            // 10: no such type
        "x{a=b} 1\n"                  // 11: unquoted value
        "x ++1\n"                     // 12
        "also_good{a=\"b\"} 5\n");
    BOOST_TEST(s.bad_lines == 10u);
    BOOST_TEST(s.first_bad_line == 3u);
    BOOST_REQUIRE(s.samples.size() == 2u);
    BOOST_TEST(s.samples[1].name == "also_good");
}

BOOST_AUTO_TEST_CASE(families_are_one_per_name_sorted) {
    const auto s = parse_prometheus_text("# TYPE z counter\n# HELP z Zed\n# TYPE a gauge\n# HELP z Zed again\n");
    BOOST_REQUIRE(s.families.size() == 2u);
    BOOST_TEST(s.families[0].name == "a");
    BOOST_TEST(s.families[1].name == "z");
    BOOST_TEST(s.families[1].help == "Zed again");
    BOOST_TEST((s.families[1].type == prom_type::counter));
}

// 32 MiB of one long label set and many short lines: linear, so well under a second.
BOOST_AUTO_TEST_CASE(large_input_is_linear) {
    std::string text;
    text.reserve(33u << 20);
    text += "long{v=\"" + std::string(16u << 20, 'x') + "\"} 1\n";
    while (text.size() < (32u << 20)) text += "vllm:num_requests_running{model_name=\"m\",engine=\"0\"} 1\n";
    const auto t0 = std::chrono::steady_clock::now();
    const auto s = parse_prometheus_text(text);
    const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    BOOST_TEST(s.bad_lines == 0u);
    BOOST_TEST(s.samples.size() > 250'000u);
    BOOST_TEST(took < 5.0);
}

BOOST_AUTO_TEST_SUITE_END()
