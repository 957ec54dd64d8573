#include <boost/test/unit_test.hpp>

#include "openloop/load/trace_values.hpp"

#include <cstdint>
#include <limits>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_trace_values)

using namespace openloop;

namespace {

std::int64_t ns(std::string_view text, time_unit unit = time_unit::s) { return parse_time_ns("t", text, unit); }

std::string error_of(std::string_view text, time_unit unit = time_unit::s) {
    try {
        ns(text, unit);
    } catch (const trace_row_error& e) {
        return e.what();
    }
    return {};
}

}  // namespace

BOOST_AUTO_TEST_CASE(decimal_seconds_are_exact_to_the_ns) {
    BOOST_TEST(ns("0") == 0);
    BOOST_TEST(ns("12") == 12'000'000'000);
    BOOST_TEST(ns("12.5") == 12'500'000'000);
    BOOST_TEST(ns(".5") == 500'000'000);
    BOOST_TEST(ns("5.") == 5'000'000'000);
    BOOST_TEST(ns("1714564800.123456789") == 1'714'564'800'123'456'789);
    BOOST_TEST(ns("  7.25 ") == 7'250'000'000);
    // 17 significant digits as pandas writes a float: beyond the ns, rounded half up.
    BOOST_TEST(ns("0.30000000000000004") == 300'000'000);
    BOOST_TEST(ns("1.2345678901234567e3") == 1'234'567'890'123);
    BOOST_TEST(ns("1.2339999999999999") == 1'234'000'000);
    BOOST_TEST(ns("0.0000000004999") == 0);
    BOOST_TEST(ns("0.0000000005") == 1);
    BOOST_TEST(ns("0.9999999999") == 1'000'000'000);  // the carry reaches the second
    BOOST_TEST(ns("2.5E-9") == 3);
    BOOST_TEST(ns("1e3") == 1'000'000'000'000);
    BOOST_TEST(ns("1.5e+2") == 150'000'000'000);
    BOOST_TEST(ns("123e-2") == 1'230'000'000);
    BOOST_TEST(ns("0e999999999999") == 0);
    BOOST_TEST(ns("5e-999999999999") == 0);
    BOOST_TEST(ns("000000000000000000000000012.5") == 12'500'000'000);
}

BOOST_AUTO_TEST_CASE(units) {
    BOOST_TEST(ns("1500", time_unit::ms) == 1'500'000'000);
    BOOST_TEST(ns("1.5", time_unit::ms) == 1'500'000);
    BOOST_TEST(ns("0.0004", time_unit::ms) == 400);
    BOOST_TEST(ns("1.5", time_unit::us) == 1'500);
    BOOST_TEST(ns("1.5", time_unit::ns) == 2);
    BOOST_TEST(ns("1.4999", time_unit::ns) == 1);
    BOOST_TEST(ns("9223372036854775807", time_unit::ns) == std::numeric_limits<std::int64_t>::max());
    BOOST_TEST(!error_of("9223372036854775808", time_unit::ns).empty());
    BOOST_TEST(!error_of("9223372036854775807.5", time_unit::ns).empty());
    BOOST_TEST(!error_of("1e10").empty());  // past 2262 in ns
    BOOST_TEST(ns("1e9") == 1'000'000'000'000'000'000);
    BOOST_TEST(to_string(time_unit::us) == "us");
}

BOOST_AUTO_TEST_CASE(bad_numbers_name_the_field) {
    for (const char* bad : {"", "-1", "+1", "1.2.3", "e5", "1e", "1e+", "nan", "inf", "0x10", "1,5", "12s", "."}) {
        const std::string e = error_of(bad);
        BOOST_TEST(e.find("field \"t\"") != std::string::npos, bad << ": " << e);
    }
    BOOST_TEST(error_of("abc").find("\"abc\"") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(iso_8601_times) {
    const std::int64_t noon = ns("2024-05-01T12:00:00Z", time_unit::iso);
    BOOST_TEST(noon == std::int64_t{1'714'564'800} * 1'000'000'000);
    BOOST_TEST(ns("2024-05-01T12:00:00.123456Z", time_unit::iso) - noon == 123'456'000);
    BOOST_TEST(ns("2024-05-01 12:00:00", time_unit::iso) == noon);  // no zone: UTC
    BOOST_TEST(ns("2024-05-01t12:00:00z", time_unit::iso) == noon);
    BOOST_TEST(ns("2024-05-01T14:00:00+02:00", time_unit::iso) == noon);
    BOOST_TEST(ns("2024-05-01T14:00:00+0200", time_unit::iso) == noon);
    BOOST_TEST(ns("2024-05-01T14:00:00+02", time_unit::iso) == noon);
    BOOST_TEST(ns("2024-05-01T06:30:00-05:30", time_unit::iso) == noon);
    BOOST_TEST(ns("2024-05-01T12:00:00,5Z", time_unit::iso) - noon == 500'000'000);
    // Any number of fractional digits, rounded at the ns.
    BOOST_TEST(ns("2024-05-01T12:00:00.1234567895Z", time_unit::iso) - noon == 123'456'790);
    BOOST_TEST(ns("2024-05-01T11:59:59.9999999999Z", time_unit::iso) == noon);
    for (const char* bad : {"2024-05-01", "2024-05-01T12:00", "2024-13-01T12:00:00", "2024-05-01T12:00:00Q",
                            "2024-05-01T12:00:00+2", "2024-05-01T12:00:00.Z", "2024/05/01 12:00:00",
                            "1969-12-31T23:59:59Z", "1970-01-01T01:00:00+02:00", "2300-01-01T00:00:00"}) {
        const std::string e = error_of(bad, time_unit::iso);
        BOOST_TEST(e.find("field \"t\": expected an ISO-8601 time") != std::string::npos, bad << ": " << e);
    }
}

BOOST_AUTO_TEST_CASE(token_counts_and_block_ids) {
    BOOST_TEST(parse_token_count("n", "374") == 374);
    BOOST_TEST(parse_token_count("n", "374.0") == 374);  // a float column's integer
    BOOST_TEST(parse_token_count("n", "3.74e2") == 374);
    BOOST_TEST(parse_token_count("n", "2147483647") == 2147483647);
    for (const char* bad : {"", "-5", "3.5", "2147483648", "x", "1e10"})
        BOOST_CHECK_THROW(parse_token_count("n", bad), trace_row_error);

    using ids = std::vector<std::uint64_t>;
    BOOST_TEST((parse_block_ids("h", "[0, 1, 2]") == ids{0, 1, 2}));
    BOOST_TEST((parse_block_ids("h", "0 1  2") == ids{0, 1, 2}));
    BOOST_TEST((parse_block_ids("h", "0;1|2") == ids{0, 1, 2}));
    BOOST_TEST((parse_block_ids("h", "18446744073709551615") == ids{18446744073709551615ULL}));
    BOOST_TEST(parse_block_ids("h", "").empty());
    BOOST_TEST(parse_block_ids("h", "[]").empty());
    for (const char* bad : {"[1, 2", "1 -2", "a b", "18446744073709551616", "1.5"})
        BOOST_CHECK_THROW(parse_block_ids("h", bad), trace_row_error);
    try {
        parse_block_ids("hash_ids", "1 x");
        BOOST_FAIL("no error");
    } catch (const trace_row_error& e) {
        BOOST_TEST(std::string(e.what()).find("field \"hash_ids\"") != std::string::npos, e.what());
    }
}

BOOST_AUTO_TEST_SUITE_END()
