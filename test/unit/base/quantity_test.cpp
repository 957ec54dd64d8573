#include <boost/test/unit_test.hpp>

#include "openloop/base/quantity.hpp"

#include <functional>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_quantity)

using namespace openloop;

namespace {

// The quantity_error's message, or "" when none was thrown.
std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const quantity_error& e) {
        return e.what();
    }
    return "";
}

bool mentions(const std::string& message, std::string_view part) { return message.find(part) != std::string::npos; }

}  // namespace

BOOST_AUTO_TEST_CASE(durations_in_seconds) {
    BOOST_TEST(parse_duration_s("250ms", "--x") == 0.25);
    BOOST_TEST(parse_duration_s("10s", "--x") == 10.0);
    BOOST_TEST(parse_duration_s("2m", "--x") == 120.0);
    BOOST_TEST(parse_duration_s("2min", "--x") == 120.0);
    BOOST_TEST(parse_duration_s("1h", "--x") == 3600.0);
    BOOST_TEST(parse_duration_s("500us", "--x") == 500e-6);
    BOOST_TEST(parse_duration_s("500\xC2\xB5s", "--x") == 500e-6);
    BOOST_TEST(parse_duration_s("1.5", "--x") == 1.5);  // a bare number is seconds
    BOOST_TEST(parse_duration_s(".5s", "--x") == 0.5);
    BOOST_TEST(parse_duration_s("1e1s", "--x") == 10.0);
    BOOST_TEST(parse_duration_s("0", "--x") == 0.0);
    BOOST_TEST(parse_duration_s(" 10 s ", "--x") == 10.0);  // blanks around and before the unit
}

BOOST_AUTO_TEST_CASE(durations_in_milliseconds_scale_once) {
    BOOST_TEST(parse_duration_ms("100ms", "") == 100.0);
    BOOST_TEST(parse_duration_ms("0.5", "") == 500.0);
    BOOST_TEST(parse_duration_ms("0.5s", "") == 500.0);
    BOOST_TEST(parse_duration_ms("500ms", "") == parse_duration_ms("0.5", ""));
    BOOST_TEST(parse_duration_ms("0.05", "") == 50.0);
    BOOST_TEST(parse_duration_ms("500us", "") == 0.5);
    BOOST_TEST(parse_duration_ms("2m", "") == 120000.0);
    BOOST_TEST(parse_duration_ms("1h", "") == 3600000.0);
}

BOOST_AUTO_TEST_CASE(bad_durations_name_the_field_and_the_text) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"", "is not a duration"},
        {"soon", "is not a duration"},
        {"s", "is not a duration"},
        {"inf", "is not a duration"},
        {"nan", "is not a duration"},
        {"-1s", "is negative"},
        {"5days", "unknown unit 'days'"},
        {"1 2s", "unknown unit '2s'"},
        {"1ns", "unknown unit 'ns'"},
        // Beyond max_duration_s: a caller's conversion to integer ns or ms would overflow.
        {"1e300", "is too long"},
        {"16667000m", "is too long"},
    };
    for (const auto& c : cases) {
        // Named, not bound: clang 14 cannot capture a structured binding in a lambda.
        const std::string& text = c.first;
        const std::string& why = c.second;
        BOOST_TEST_CONTEXT(text) {
            const auto message = error_of([&] { parse_duration_s(text, "--duration"); });
            BOOST_TEST(message.rfind("--duration: '" + text + "' ", 0) == 0u, message);
            BOOST_TEST(mentions(message, why), message);
            BOOST_TEST(mentions(message, "a bare number is seconds"), message);  // the accepted syntax
            BOOST_TEST(error_of([&] { parse_duration_ms(text, "--duration"); }) == message);
        }
    }
    BOOST_TEST(parse_duration_s("1e9", "--x") == max_duration_s);
    // Without a field the message starts at the text.
    BOOST_TEST(error_of([] { parse_duration_s("soon", ""); }).rfind("'soon' is not a duration", 0) == 0u);
}

BOOST_AUTO_TEST_CASE(numbers_and_integers) {
    BOOST_TEST(parse_number("2", "--x") == 2.0);
    BOOST_TEST(parse_number(" -0.5 ", "--x") == -0.5);
    BOOST_TEST(parse_number(".5", "--x") == 0.5);
    BOOST_TEST(parse_number("1e3", "--x") == 1000.0);
    for (const std::string bad : {"", "x", "1x", "inf", "nan", "1,5", "0x10"}) {
        BOOST_TEST_CONTEXT(bad) {
            BOOST_TEST(!as_number(bad));
            const auto message = error_of([&] { parse_number(bad, "--rate"); });
            BOOST_TEST(message.rfind("--rate: '" + bad + "' is not a number", 0) == 0u, message);
        }
    }
    BOOST_TEST(parse_integer("20", "--x") == 20);
    BOOST_TEST(parse_integer(" -1 ", "--x") == -1);
    for (const std::string bad : {"", "2.5", "1e3", "x", "99999999999999999999"}) {
        BOOST_TEST_CONTEXT(bad) {
            BOOST_TEST(!as_integer(bad));
            BOOST_TEST(mentions(error_of([&] { parse_integer(bad, "--warmup"); }), "--warmup: '" + bad + "' is not a whole number"));
        }
    }
}

BOOST_AUTO_TEST_CASE(fractions) {
    BOOST_TEST(parse_fraction("0.01", "--x") == 0.01);
    BOOST_TEST(parse_fraction("1%", "--x") == 0.01);
    BOOST_TEST(parse_fraction("0.5 %", "--x") == 0.005);
    BOOST_TEST(parse_fraction("100%", "--x") == 1.0);
    BOOST_TEST(parse_fraction("0", "--x") == 0.0);
    for (const std::string bad : {"", "lots", "1x", "5 percent", "150%", "1.5", "-1%"}) {
        BOOST_TEST_CONTEXT(bad) {
            const auto message = error_of([&] { parse_fraction(bad, "--max-error-rate"); });
            BOOST_TEST(message.rfind("--max-error-rate: '" + bad + "' ", 0) == 0u, message);
            BOOST_TEST(mentions(message, "0.01 or 1%"), message);
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
