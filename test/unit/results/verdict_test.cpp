#include <boost/test/unit_test.hpp>

#include "openloop/results/verdict.hpp"
#include "run_fixtures.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_verdict)

using namespace openloop;
using namespace run_fixtures;

BOOST_AUTO_TEST_CASE(a_healthy_open_loop_run_is_valid) {
    const verdict v = judge(healthy(), open_loop());
    BOOST_TEST(v.valid);
    BOOST_TEST(v.reasons.empty());
    BOOST_TEST(!v.too_many_errors);
    BOOST_TEST(v.generator_ok);
}

BOOST_AUTO_TEST_CASE(lag_over_the_bound_invalidates_an_open_loop_run_only) {
    run_stats s = healthy();
    for (int i = 0; i < 10; ++i) {
        s.lag.record(5 * ms_ns);  // half the requests 5 ms late: p99 = 5 ms
    }
    run_context c = open_loop();
    const verdict v = judge(s, c);
    BOOST_TEST(!v.valid);
    BOOST_TEST(!v.generator_ok);
    BOOST_TEST_REQUIRE(v.reasons.size() == 1u);
    const auto at = v.reasons[0].find("lag p99 ");
    BOOST_TEST_REQUIRE(at != std::string::npos, v.reasons[0]);
    BOOST_TEST(std::stod(v.reasons[0].substr(at + 8)) == 5.0, boost::test_tools::tolerance(0.001));
    BOOST_TEST(v.reasons[0].find("1 ms bound") != std::string::npos, v.reasons[0]);
    BOOST_TEST(v.reasons[0].find("waited") == std::string::npos, v.reasons[0]);  // the io thread's wait unknown

    // The io thread's wait for a CPU is said with the lag: a machine shared with the server.
    c.io_cpu_wait_ms = 3081.4;
    BOOST_TEST(judge(s, c).reasons[0].find("(its io thread waited 3081 ms in all for a CPU other threads held)") !=
                   std::string::npos,
               judge(s, c).reasons[0]);

    c.lag_bound_ms = 10;
    BOOST_TEST(judge(s, c).valid);

    c.lag_bound_ms = 1;
    c.mode = "closed-loop";  // no schedule, so nothing to lag behind
    BOOST_TEST(judge(s, c).valid);
    BOOST_TEST(judge(s, c).generator_ok);
}

BOOST_AUTO_TEST_CASE(lost_events_nothing_completed_and_partial_are_invalid) {
    run_stats lost = healthy();
    lost.lost_events = 3;
    const verdict v1 = judge(lost, open_loop());
    BOOST_TEST(!v1.valid);
    BOOST_TEST(!v1.generator_ok);
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
    BOOST_TEST(v3.generator_ok);
    BOOST_TEST_REQUIRE(v3.reasons.size() == 1u);
    BOOST_TEST(v3.reasons[0] == "run cut short: SIGINT");
}

// Failed requests above --max-error-rate fail the run, with the classes named
// in the reason; at or under the bound the run stays valid.
BOOST_AUTO_TEST_CASE(too_many_errors_fail_the_run_and_name_their_classes) {
    run_stats s = healthy();  // 10 completed
    s.failed = 8;
    s.failed_by_class[static_cast<std::size_t>(error_class::stream_truncated)] = 6;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 2;
    run_context c = open_loop();
    const verdict v = judge(s, c);
    BOOST_TEST(!v.valid);
    BOOST_TEST(v.too_many_errors);
    BOOST_TEST_REQUIRE(!v.reasons.empty());
    BOOST_TEST(v.reasons[0] == "error rate 44.44 % exceeds the 1 % bound (6 stream_truncated, 2 http_5xx)");

    c.max_error_rate = 0.5;
    BOOST_TEST(judge(s, c).valid);
    BOOST_TEST(!judge(s, c).too_many_errors);
    c.max_error_rate = 0.44;
    BOOST_TEST(judge(s, c).too_many_errors);
}

// A run where nothing completed fails on its error rate too (exit status 4),
// but says so in the one reason that matters.
BOOST_AUTO_TEST_CASE(all_failed_is_too_many_errors_with_one_reason) {
    run_stats s;
    s.failed = 4;
    s.failed_by_class[static_cast<std::size_t>(error_class::connect)] = 4;
    const verdict v = judge(s, open_loop());
    BOOST_TEST(v.too_many_errors);
    BOOST_TEST_REQUIRE(v.reasons.size() == 1u);
    BOOST_TEST(v.reasons[0] == "no request completed (4 failed, 0 unfinished)");
}

// Requests openloop cancelled itself (the drain or the grace ran out) are
// not the server's failures: counted apart, and not against --max-error-rate.
BOOST_AUTO_TEST_CASE(own_cancellations_are_not_server_errors) {
    run_stats s = healthy();
    s.failed = 5;
    s.failed_by_class[static_cast<std::size_t>(error_class::cancelled)] = 5;
    const error_tally only_own = count_errors(s);
    BOOST_TEST(only_own.failed == 0u);
    BOOST_TEST(only_own.cancelled == 5u);
    BOOST_TEST(only_own.ended == 10u);
    BOOST_TEST(only_own.rate == 0.0);
    BOOST_TEST(judge(s, open_loop()).valid);

    s.failed = 6;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 1;
    const error_tally t = count_errors(s);
    BOOST_TEST(t.failed == 1u);
    BOOST_TEST(t.ended == 11u);
    BOOST_TEST(t.rate == 1.0 / 11.0, boost::test_tools::tolerance(1e-12));
    const verdict v = judge(s, open_loop());
    BOOST_TEST_REQUIRE(v.reasons.size() == 1u);
    BOOST_TEST(v.reasons[0] == "error rate 9.09 % exceeds the 1 % bound (1 http_5xx)");
}

// Requests cut by the drain limit after the last send are openloop's doing too.
BOOST_AUTO_TEST_CASE(cancelled_at_end_is_not_a_server_error) {
    run_stats s = healthy();
    s.failed = 4;
    s.failed_by_class[static_cast<std::size_t>(error_class::cancelled)] = 1;
    s.failed_by_class[static_cast<std::size_t>(error_class::cancelled_at_end)] = 2;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 1;
    const error_tally t = count_errors(s);
    BOOST_TEST(t.cancelled == 3u);
    BOOST_TEST(t.failed == 1u);
    const verdict v = judge(s, open_loop());
    BOOST_TEST_REQUIRE(v.reasons.size() == 1u);
    BOOST_TEST(v.reasons[0] == "error rate 9.09 % exceeds the 1 % bound (1 http_5xx)");
}

// Out of file descriptors, the client failed to send: said first, as
// openloop's own limit, not left to read as the server's errors.
BOOST_AUTO_TEST_CASE(out_of_descriptors_is_the_generators_failure) {
    run_stats s = healthy();  // 10 completed
    s.failed = 5;
    s.failed_by_class[static_cast<std::size_t>(error_class::fd_limit)] = 5;
    const verdict v = judge(s, open_loop());
    BOOST_TEST(!v.valid);
    BOOST_TEST(!v.generator_ok);
    // Not the server's errors: left out of the error rate, as openloop's own cancellations are.
    BOOST_TEST(!v.too_many_errors);
    BOOST_TEST(count_errors(s).failed == 0u);
    BOOST_TEST(count_errors(s).unsent == 5u);
    BOOST_TEST_REQUIRE(v.reasons.size() == 1u);
    BOOST_TEST(v.reasons[0] ==
               "5 requests never reached the server: openloop ran out of file descriptors (fd_limit: raise its hard limit, ulimit -Hn)");
}

BOOST_AUTO_TEST_SUITE_END()
