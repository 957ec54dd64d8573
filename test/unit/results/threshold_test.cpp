#include <boost/test/unit_test.hpp>

#include "openloop/results/history.hpp"
#include "openloop/results/threshold.hpp"
#include "run_fixtures.hpp"

#include <stdexcept>

BOOST_AUTO_TEST_SUITE(unit_threshold)

using namespace openloop;

namespace {

run_result healthy() { return make_run_result(run_fixtures::healthy(), run_fixtures::open_loop()); }

}  // namespace

// healthy(): TTFT 100 ms, TPOT 20 ms, E2E 1080 ms, 10 completed over 2 s.
BOOST_AUTO_TEST_CASE(latency_rate_and_error_thresholds_hold_or_fail) {
    const run_result r = healthy();
    BOOST_TEST(!threshold_failure(parse_threshold("ttft_p99<1s"), r));
    BOOST_TEST(!threshold_failure(parse_threshold("ttft_p99<101ms"), r));
    const auto fail = threshold_failure(parse_threshold("ttft_p99<100ms"), r);  // strictly under
    BOOST_TEST_REQUIRE(fail.has_value());
    BOOST_TEST(*fail == "ttft_p99<100ms: ttft_p99 was 100.000 ms");
    BOOST_TEST(!threshold_failure(parse_threshold("e2e_mean<2s"), r));
    BOOST_TEST(threshold_failure(parse_threshold("tpot_median>25ms"), r).has_value());
    BOOST_TEST(!threshold_failure(parse_threshold("request_throughput>4.9"), r));
    BOOST_TEST(threshold_failure(parse_threshold("request_throughput>5.1"), r).has_value());
    BOOST_TEST(!threshold_failure(parse_threshold("error_rate<1%"), r));
    BOOST_TEST(*threshold_value(r, "error_rate") == 0.0);
    BOOST_TEST(threshold_value(r, "goodput").value() == 4.0);  // 8 good over 2 s
}

BOOST_AUTO_TEST_CASE(a_metric_without_samples_fails_its_threshold) {
    const run_result r = healthy();
    const auto why = threshold_failure(parse_threshold("connect_p99<10ms"), r);
    BOOST_TEST_REQUIRE(why.has_value());
    BOOST_TEST(why->find("no samples") != std::string::npos);
}

// A request that never answered (max_tokens spent thinking) is infinitely late: every TTFA
// statistic at or past its rank is infinite, so a TTFA threshold there fails and says why.
BOOST_AUTO_TEST_CASE(a_request_that_never_answered_fails_a_ttfa_threshold) {
    const run_result r = make_run_result(run_fixtures::thinking_run(7, 3), run_fixtures::open_loop());
    const auto p99 = threshold_failure(parse_threshold("ttfa_p99<5s"), r);
    BOOST_TEST_REQUIRE(p99.has_value());
    BOOST_TEST(*p99 == "ttfa_p99<5s: ttfa_p99 was infinite: 3 of 10 completed requests never answered");
    BOOST_TEST(!threshold_failure(parse_threshold("ttfa_p70<5s"), r));  // the seventh answered, in 100 ms
    BOOST_TEST(threshold_failure(parse_threshold("ttfa_p80<5s"), r).has_value());
    BOOST_TEST(threshold_failure(parse_threshold("ttfa_max<5s"), r).has_value());
    BOOST_TEST(threshold_failure(parse_threshold("ttfa_mean<5s"), r).has_value());
    BOOST_TEST(!threshold_failure(parse_threshold("ttft_p99<5s"), r));  // their first token came
}

BOOST_AUTO_TEST_CASE(bad_thresholds_are_named) {
    for (const char* bad : {"ttft_p99", "ttft_p99<", "<1s", "latency_p99<1s", "ttft_p101<1s", "ttft_p99<soon",
                            "request_throughput>fast"})
        BOOST_CHECK_THROW(parse_threshold(bad), std::exception);
    const threshold t = parse_threshold("error_rate<0.5%");
    BOOST_TEST(t.limit == 0.005);
    BOOST_TEST(t.below);
}

BOOST_AUTO_TEST_CASE(a_history_row_has_a_value_per_column) {
    const run_result r = healthy();
    const std::string header = history_header(), row = history_row(r, "2026-12-02T10:00:00+0000", "a,b", "out");
    const auto columns = [](const std::string& s) {
        std::size_t n = 1;
        bool quoted = false;
        for (char c : s) {
            if (c == '"') quoted = !quoted;
            if (c == ',' && !quoted) ++n;
        }
        return n;
    };
    BOOST_TEST(columns(header) == columns(row));
    BOOST_TEST(row.find(",\"a,b\",") != std::string::npos);
    BOOST_TEST(row.find(",true,10,0,2,5,4,") != std::string::npos, row);
    BOOST_TEST(header.rfind("date,label,target", 0) == 0u);
    BOOST_TEST(row.back() == '\n');
}

BOOST_AUTO_TEST_SUITE_END()
