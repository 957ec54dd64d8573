#include <boost/test/unit_test.hpp>

#include "openloop/results/table.hpp"
#include "run_fixtures.hpp"

#include <cstddef>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_table)

using namespace openloop;
using namespace run_fixtures;

namespace {

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

}  // namespace

BOOST_AUTO_TEST_CASE(the_table_starts_with_the_verdict) {
    run_stats s = healthy();
    s.lost_events = 2;
    s.failed = 1;
    s.failed_by_class[static_cast<int>(error_class::stream_truncated)] = 1;
    const std::string table = format_table(make_run_result(s, open_loop()));
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

    const std::string ok = format_table(make_run_result(healthy(), open_loop()));
    BOOST_TEST(first_line(ok) == "VALID");
    BOOST_TEST(ok.find("errors by class") == std::string::npos);
}

BOOST_AUTO_TEST_CASE(the_first_reason_of_too_many_errors_heads_the_table) {
    run_stats s = healthy();
    s.failed = 8;
    s.failed_by_class[static_cast<std::size_t>(error_class::stream_truncated)] = 6;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 2;
    const std::string table = format_table(make_run_result(s, open_loop()));
    BOOST_TEST(table.rfind("INVALID: error rate 44.44 %", 0) == 0u, table);
}

// The error-rate line counts what the verdict counts: openloop's own
// cancellations are named apart, not as failures.
BOOST_AUTO_TEST_CASE(the_error_rate_line_leaves_own_cancellations_out) {
    run_stats s = healthy();  // 10 completed
    s.failed = 3;
    s.failed_by_class[static_cast<std::size_t>(error_class::http_5xx)] = 2;
    s.failed_by_class[static_cast<std::size_t>(error_class::cancelled)] = 1;
    const std::string table = format_table(make_run_result(s, open_loop()));
    BOOST_TEST(first_line(table) == "INVALID: error rate 16.67 % exceeds the 1 % bound (2 http_5xx)");
    BOOST_TEST(table.find("\nerror rate     16.67 %  (2 failed, 10 completed; 1 cancelled by openloop, not counted)\n") !=
                   std::string::npos,
               table);
}

BOOST_AUTO_TEST_SUITE_END()
