#include <boost/test/unit_test.hpp>

#include "openloop/results/model_report.hpp"
#include "openloop/results/rebuild.hpp"
#include "openloop/results/threshold.hpp"
#include "openloop/results/workload_match.hpp"

#include <boost/json.hpp>

#include <stdexcept>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_model_report)

using namespace openloop;

namespace {

// Two models over 2 s: base's TTFT 100 ms (4 completed), sql-lora's 300 ms (2 completed, 1 failed).
run_result mixed() {
    run_stats s;
    s.by_model.emplace_back("base");
    s.by_model.emplace_back("sql-lora");
    model_stats& a = s.by_model[0];
    model_stats& b = s.by_model[1];
    a.started = a.completed = 4;
    a.output_tokens = 40;
    for (int i = 0; i < 4; ++i) a.ttft.record(100'000'000);
    b.started = 3;
    b.completed = 2;
    b.failed = 1;
    for (int i = 0; i < 2; ++i) b.ttft.record(300'000'000);
    s.started = 7;
    s.completed = 6;
    s.failed = 1;
    s.first_intended_ns = 1'000'000'000;
    s.last_end_ns = 3'000'000'000;
    run_context c;
    return make_run_result(std::move(s), c);
}

std::string failure(const char* text, const run_result& r) { return threshold_failure(parse_threshold(text), r).value_or(""); }

}  // namespace

BOOST_AUTO_TEST_CASE(a_threshold_gates_one_models_figure) {
    const run_result r = mixed();
    BOOST_TEST(failure("ttft_p99{model=base}<200ms", r).empty());
    BOOST_TEST(failure("ttft_p99{model=sql-lora}<200ms", r) ==
               "ttft_p99{model=sql-lora}<200ms: ttft_p99 of model sql-lora was 300.000 ms");
    BOOST_TEST(failure("request_throughput{model=base}>1.9", r).empty());  // 4 over 2 s
    BOOST_TEST(!failure("error_rate{model=sql-lora}<10%", r).empty());     // 1 of 3
    BOOST_TEST(failure("error_rate{model=base}<10%", r).empty());
}

BOOST_AUTO_TEST_CASE(a_threshold_names_a_model_the_run_does_not_have) {
    BOOST_TEST(failure("ttft_p99{model=chat}<1s", mixed()) ==
               "ttft_p99{model=chat}<1s: the run has no model 'chat' (its models: base, sql-lora)");
    const std::string single = failure("ttft_p99{model=chat}<1s", make_run_result(run_stats(), run_context()));
    BOOST_TEST(single.find("not a mixed run") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_bad_model_tag_is_refused_with_its_syntax) {
    BOOST_CHECK_THROW(parse_threshold("ttft_p99{model=}<1s"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_threshold("ttft_p99{name=a}<1s"), std::invalid_argument);
    BOOST_CHECK_THROW(parse_threshold("ttft_p99{model=a<1s"), std::invalid_argument);
    try {
        parse_threshold("lag_p99{model=a}<1s");
        BOOST_FAIL("lag is the run's, not a model's");
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("model 'a' keeps no 'lag_p99'") != std::string::npos);
    }
    const threshold t = parse_threshold("e2e_p90{model=sql-lora}<3s");
    BOOST_TEST(t.model == "sql-lora");
    BOOST_TEST(t.metric == "e2e_p90");
    BOOST_TEST(t.limit == 3000.0);
}

BOOST_AUTO_TEST_CASE(by_model_gives_each_models_share_rates_and_latency) {
    const boost::json::object o = by_model_json(mixed());
    BOOST_TEST_REQUIRE(o.size() == 2u);
    const boost::json::object& b = o.at("sql-lora").as_object();
    BOOST_TEST(b.at("share").as_double() == 3.0 / 7.0);
    BOOST_TEST(b.at("request_throughput").as_double() == 1.0);
    BOOST_TEST(b.at("p99_ttft_ms").as_double() == 300.0);
    BOOST_TEST(b.at("error_rate").as_double() == 1.0 / 3.0);
    BOOST_TEST(!b.contains("p99_ttfa_ms"));  // the run never thought
    BOOST_TEST(!b.contains("slo_attainment"));  // no --goodput
    BOOST_TEST(o.at("base").as_object().at("output_throughput").as_double() == 20.0);
}

BOOST_AUTO_TEST_CASE(a_log_rebuilds_each_model_and_the_media) {
    const std::string log =
        R"({"index":0,"model":"base","warmup":false,"status":"ok","intended_ns":1000,"sent_ns":1000,"first_token_ns":50001000,"last_token_ns":80001000,"end_ns":80001000,"input_tokens":100,"prompt_tokens":100,"output_tokens":4,"output_tokens_source":"usage"})"
        "\n"
        R"({"index":1,"model":"lora","warmup":false,"status":"ok","intended_ns":2000,"sent_ns":2000,"first_token_ns":90002000,"last_token_ns":120002000,"end_ns":120002000,"input_tokens":100,"prompt_tokens":356,"images":1,"audios":0,"bucket":"512x512","body_bytes":51000,"media_tokens":256,"output_tokens":4,"output_tokens_source":"usage"})"
        "\n"
        R"({"index":2,"model":"lora","warmup":false,"status":"failed","error":"http_5xx","http_status":500,"intended_ns":3000,"end_ns":9000,"input_tokens":100,"images":2,"audios":0,"bucket":"mixed","body_bytes":101000,"output_tokens":0})"
        "\n";
    const rebuilt_stats r = rebuild_stats(log);
    BOOST_TEST_REQUIRE(r.stats.by_model.size() == 2u);
    BOOST_TEST(r.stats.by_model[0].name == "base");
    BOOST_TEST(r.stats.by_model[1].completed == 1u);
    BOOST_TEST(r.stats.by_model[1].failed == 1u);
    BOOST_TEST(r.stats.by_model[1].ttft.max() == 90'000'000);
    BOOST_TEST_REQUIRE(r.stats.media.has_value());
    const media_stats& m = *r.stats.media;
    BOOST_TEST(m.requests == 2u);
    BOOST_TEST(m.images == 3);
    BOOST_TEST(m.body_bytes_total == 152'000);
    BOOST_TEST(m.media_tokens == 256);
    BOOST_TEST(m.text_tokens == 100);
    BOOST_TEST_REQUIRE(m.by_images.size() == 2u);
    BOOST_TEST(m.by_images[0].requests == 1u);  // the text-only line before the first media one
    BOOST_TEST(m.by_images[1].requests == 1u);
}

BOOST_AUTO_TEST_CASE(another_mix_or_other_media_is_another_workload) {
    run_context a, b;
    a.model_mix = "base=0.5,lora=0.5";
    b.model_mix = "base=0.8,lora=0.2";
    auto d = run_differences(a, b);
    BOOST_TEST_REQUIRE(d.size() == 1u);
    BOOST_TEST(d[0].aspect == "model mix");
    BOOST_TEST(d[0].workload);
    b.model_mix = a.model_mix;
    b.media = boost::json::object{{"images", 2}};
    d = run_differences(a, b);
    BOOST_TEST_REQUIRE(d.size() == 1u);
    BOOST_TEST(d[0].aspect == "media");
    BOOST_TEST(d[0].first == "(not set)");
}

BOOST_AUTO_TEST_CASE(a_rebuilt_runs_models_come_back_in_the_mixs_order) {
    run_stats s;
    s.by_model.emplace_back("chat-lora");
    s.by_model.emplace_back("stray");
    s.by_model.emplace_back("base");
    run_context c;
    c.model_mix = "base=0.5,sql-lora=0.3,chat-lora=0.2";
    const run_result r = make_run_result(std::move(s), c);
    BOOST_TEST_REQUIRE(r.stats.by_model.size() == 3u);
    BOOST_TEST(r.stats.by_model[0].name == "base");
    BOOST_TEST(r.stats.by_model[1].name == "chat-lora");
    BOOST_TEST(r.stats.by_model[2].name == "stray");  // not in the mix: last
}

BOOST_AUTO_TEST_SUITE_END()
