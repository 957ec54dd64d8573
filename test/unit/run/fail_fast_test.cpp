#include <boost/test/unit_test.hpp>

#include "openloop/run/fail_fast.hpp"
#include "printing.hpp"

#include <ostream>

BOOST_AUTO_TEST_SUITE(unit_fail_fast)

using namespace openloop;

BOOST_AUTO_TEST_CASE(trips_once_after_the_same_refusal_n_times) {
    fail_fast f;
    for (int i = 1; i < fail_fast::requests; ++i) BOOST_TEST(!f.observe(error_class::http_4xx, 404));
    BOOST_TEST(!f.tripped());
    BOOST_TEST(f.observe(error_class::http_4xx, 404));
    BOOST_TEST(f.tripped());
    BOOST_TEST(f.failure() == error_class::http_4xx);
    BOOST_TEST(f.status() == 404);
    BOOST_TEST(!f.observe(error_class::http_4xx, 404));  // once
}

BOOST_AUTO_TEST_CASE(one_success_or_a_different_failure_disarms_it) {
    fail_fast ok;
    ok.observe(error_class::http_4xx, 401);
    ok.observe(error_class::none, 0);
    for (int i = 0; i < 20; ++i) BOOST_TEST(!ok.observe(error_class::http_4xx, 401));
    fail_fast mixed;
    mixed.observe(error_class::http_4xx, 401);
    mixed.observe(error_class::http_4xx, 403);
    for (int i = 0; i < 20; ++i) BOOST_TEST(!mixed.observe(error_class::http_4xx, 403));
}

BOOST_AUTO_TEST_CASE(busy_or_broken_servers_never_trip_it) {
    for (const int status : {400, 408, 413, 429}) {
        fail_fast f;
        for (int i = 0; i < 20; ++i) BOOST_TEST(!f.observe(error_class::http_4xx, status));
    }
    for (const error_class c : {error_class::http_5xx, error_class::timeout_first_token, error_class::timeout_connect,
                                error_class::stream_truncated, error_class::no_content, error_class::cancelled,
                                error_class::fd_limit}) {
        fail_fast f;
        for (int i = 0; i < 20; ++i) BOOST_TEST(!f.observe(c, c == error_class::http_5xx ? 503 : 0));
    }
    for (const error_class c : {error_class::connect, error_class::tls}) {
        fail_fast f;
        for (int i = 1; i < fail_fast::requests; ++i) f.observe(c, 0);
        BOOST_TEST(f.observe(c, 0));
    }
    // The same redirect every time: the target URL is wrong.
    fail_fast redirected;
    for (int i = 1; i < fail_fast::requests; ++i) redirected.observe(error_class::http_3xx, 308);
    BOOST_TEST(redirected.observe(error_class::http_3xx, 308));
}

BOOST_AUTO_TEST_CASE(the_reason_quotes_the_server) {
    error_messages m;
    m.note(error_class::http_4xx, 404, "The model `x` does not exist.");
    BOOST_TEST(fail_fast_reason(error_class::http_4xx, 404, m) ==
               "stopping early: the first 8 requests all failed with HTTP 404: \"The model `x` does not exist.\"");
    m.note(error_class::connect, 0, "connect 127.0.0.1:9: Connection refused");
    BOOST_TEST(fail_fast_reason(error_class::connect, 0, m) ==
               "stopping early: the first 8 requests all failed with connect: \"connect 127.0.0.1:9: Connection refused\"");
    BOOST_TEST(fail_fast_reason(error_class::tls, 0, m) == "stopping early: the first 8 requests all failed with tls");
    m.note(error_class::http_3xx, 301, "redirected to /v1/");
    BOOST_TEST(fail_fast_reason(error_class::http_3xx, 301, m) ==
               "stopping early: the first 8 requests all failed with HTTP 301: \"redirected to /v1/\"");
}

BOOST_AUTO_TEST_SUITE_END()
