#include <boost/test/unit_test.hpp>

// The metric definitions on one timeline, without the reporter thread.

#include "openloop/measure/request_metrics.hpp"

BOOST_AUTO_TEST_SUITE(unit_request_metrics)

using namespace openloop;

namespace {

constexpr std::int64_t ms_ns = 1'000'000;
constexpr std::int64_t t0 = 9'000 * ms_ns;

// Intended at t0, sent 1 ms late, chunks at the given ms offsets with their token counts.
request_timeline timeline(std::initializer_list<std::pair<int, int>> chunks) {
    request_timeline r;
    r.intended = t0;
    r.sent = t0 + ms_ns;
    r.input_tokens = 100;
    r.max_tokens = 8;
    for (const auto& [at_ms, tokens] : chunks) r.add_chunk(t0 + at_ms * ms_ns, tokens);
    return r;
}

}  // namespace

BOOST_AUTO_TEST_CASE(ttft_e2e_and_tpot_count_from_the_intended_time) {
    const auto r = timeline({{50, 1}, {70, 2}, {110, 3}});
    const auto m = measure_request(r, {6, 100, -1});
    BOOST_TEST(m.ttft == 50 * ms_ns);
    BOOST_TEST(m.e2e == 110 * ms_ns);
    BOOST_TEST(m.output_from_usage);
    BOOST_TEST(m.output_tokens == 6);
    BOOST_TEST(m.tpot == 12 * ms_ns);  // (110 - 50) / (6 - 1)
    BOOST_TEST(r.max_itl == 40 * ms_ns / 3);  // the worst per-token gap: 40 ms over 3 tokens, not 20 over 2

    const auto estimated = measure_request(r, {});
    BOOST_TEST(!estimated.output_from_usage);
    BOOST_TEST(estimated.output_tokens == 3);  // content chunks
    BOOST_TEST(estimated.tpot == 30 * ms_ns);
}

BOOST_AUTO_TEST_CASE(no_content_means_no_ttft_and_fails_a_ttft_slo) {
    const auto r = timeline({});
    const auto m = measure_request(r, {0, 100, -1});
    BOOST_TEST(m.ttft == -1);
    BOOST_TEST(m.e2e == -1);
    BOOST_TEST(m.tpot == -1);
    goodput_slo slo;
    BOOST_TEST(meets(slo, r, m));
    slo.ttft_ms = 1000;
    BOOST_TEST(!meets(slo, r, m));
}

BOOST_AUTO_TEST_CASE(itl_splits_a_chunk_over_its_tokens) {
    run_stats stats;
    const auto r = timeline({{50, 1}, {70, 2}, {100, -1}});
    const auto m = measure_request(r, {4, 100, 32});
    record_completed(stats, r, m, {4, 100, 32}, meets({}, r, m));
    BOOST_TEST(stats.completed == 1u);
    BOOST_TEST(stats.icl.count() == 2u);
    BOOST_TEST(stats.itl.count() == 3u);  // two 10 ms samples, one 30 ms chunk interval
    BOOST_TEST(stats.itl_token_samples == 2u);
    BOOST_TEST(stats.itl_chunk_samples == 1u);
    BOOST_TEST(stats.itl.min() == 10 * ms_ns);
    BOOST_TEST(stats.prompt_exact == 1u);
    BOOST_TEST(stats.cached_prompt_tokens == 32);
    BOOST_TEST(stats.ttft_from_send.min() == 49 * ms_ns);
    BOOST_TEST(stats.by_input[input_bucket(100)].completed == 1u);
    BOOST_TEST(stats.good == 1u);
}

BOOST_AUTO_TEST_CASE(goodput_needs_every_threshold) {
    const auto r = timeline({{50, 1}, {70, 1}, {200, 1}});
    const auto m = measure_request(r, {3, -1, -1});
    goodput_slo slo;
    slo.ttft_ms = 60;
    slo.e2e_ms = 250;
    BOOST_TEST(meets(slo, r, m));
    slo.itl_ms = 100;  // the worst gap is 130 ms
    BOOST_TEST(!meets(slo, r, m));
    slo.itl_ms = -1;
    slo.tpot_ms = 70;  // (200 - 50) / 2 = 75 ms
    BOOST_TEST(!meets(slo, r, m));
}

// Absurd usage (a continuous usage jump to 2^31 - 1): recorded once with its
// weight, never looped per token, and judged against max_tokens.
BOOST_AUTO_TEST_CASE(a_chunk_claiming_int32_max_tokens_is_one_weighted_sample) {
    request_timeline r;
    r.intended = t0;
    r.max_tokens = 0;  // unset: only the decoder's and reader's rules apply
    r.add_chunk(t0 + 10 * ms_ns, 1);
    r.add_chunk(t0 + 20 * ms_ns, 2147483646);
    const stream_usage usage{2147483647, 5, -1};
    const auto m = measure_request(r, usage);
    BOOST_TEST(!m.bad_usage);
    BOOST_TEST(m.output_tokens == 2147483647);
    run_stats stats;
    record_completed(stats, r, m, usage, true);  // a per-token loop would take seconds here
    BOOST_TEST(stats.itl.count() == 2147483646u);
    BOOST_TEST(stats.itl_token_samples == 2147483646u);
    BOOST_TEST(stats.icl.count() == 1u);
    BOOST_TEST(stats.total_output_tokens == 2147483647);
}

BOOST_AUTO_TEST_CASE(usage_beyond_int32_is_not_cut) {
    request_timeline r = timeline({{10, 1}, {20, 1}});
    r.max_tokens = 0;
    const stream_usage usage{4294967396, 5, -1};
    const auto m = measure_request(r, usage);
    BOOST_TEST(m.output_tokens == 4294967396);
    run_stats stats;
    record_completed(stats, r, m, usage, true);
    BOOST_TEST(stats.total_output_tokens == 4294967396);
}

BOOST_AUTO_TEST_CASE(usage_beyond_max_tokens_and_margin_is_bad) {
    BOOST_TEST(usage_margin(8) == 16);
    BOOST_TEST(usage_margin(1000) == 100);
    request_timeline r = timeline({{50, 1}, {70, 2147483646}});  // max_tokens 8
    BOOST_TEST(!measure_request(r, {8 + 16, 5, -1}).bad_usage);
    const stream_usage usage{8 + 17, 5, -1};
    const auto m = measure_request(r, usage);
    BOOST_TEST(m.bad_usage);
    BOOST_TEST(!m.output_from_usage);
    BOOST_TEST(m.output_tokens == 2);  // content chunks
    run_stats stats;
    record_completed(stats, r, m, usage, true);
    BOOST_TEST(stats.bad_usage == 1u);
    BOOST_TEST(stats.output_estimated == 1u);
    BOOST_TEST(stats.total_output_tokens == 2);
    BOOST_TEST(stats.itl.count() == 1u);  // the interval, unweighted
    BOOST_TEST(stats.itl_chunk_samples == 1u);
}

BOOST_AUTO_TEST_CASE(usage_the_reader_distrusted_falls_back_to_chunks) {
    const request_timeline r = timeline({{50, 1}, {70, 1}, {90, 1}});
    const auto m = measure_request(r, {-1, 5, -1, true});
    BOOST_TEST(m.bad_usage);
    BOOST_TEST(m.output_tokens == 3);
}

BOOST_AUTO_TEST_SUITE_END()
