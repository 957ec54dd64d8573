#include <boost/test/unit_test.hpp>

#include "openloop/run/start_clock.hpp"

#include <cstdint>
#include <stdexcept>

BOOST_AUTO_TEST_SUITE(unit_start_clock)

using namespace openloop;

namespace {
constexpr std::int64_t s = 1'000'000'000;
constexpr std::int64_t t0 = 1'796'294'400 * s;  // 2026-12-03T10:40:00Z
}  // namespace

BOOST_AUTO_TEST_CASE(start_at_forms) {
    BOOST_TEST(parse_start_at("2026-12-03T10:40:00Z", 0) == t0);
    BOOST_TEST(parse_start_at("2026-12-03T11:40:00.25+01:00", 0) == t0 + s / 4);
    BOOST_TEST(parse_start_at("2026-12-03 10:40:00Z", 0) == t0);
    BOOST_TEST(parse_start_at("@1796294400", 0) == t0);
    BOOST_TEST(parse_start_at("@1796294400.5", 0) == t0 + s / 2);
    BOOST_TEST(parse_start_at("+30s", t0) == t0 + 30 * s);
    BOOST_TEST(parse_start_at("+2m", t0) == t0 + 120 * s);
    BOOST_TEST(parse_start_at("+1.5", t0) == t0 + 3 * s / 2);
    for (const char* bad : {"", "+", "+x", "@", "@-1", "10:40", "2026-12-03", "2026-13-03T10:40:00Z", "tomorrow"}) {
        BOOST_TEST_CONTEXT(bad) {
            BOOST_CHECK_THROW(parse_start_at(bad, t0), std::invalid_argument);
        }
    }
    try {
        parse_start_at("soon", t0);
    } catch (const std::invalid_argument& e) {
        BOOST_TEST(std::string(e.what()).find("--start-at \"soon\"") != std::string::npos);
    }
}

BOOST_AUTO_TEST_CASE(without_start_at_after_the_lead_in) {
    const start_clock c = plan_start(-1, 7 * s, 100 * s, s / 5);
    BOOST_TEST(c.origin_steady_ns == 100 * s + s / 5);
    BOOST_TEST(c.late_ns == 0);
    BOOST_TEST(c.origin_wall_ns() == 107 * s + s / 5);
}

BOOST_AUTO_TEST_CASE(on_the_wall_clock_instant) {
    // The wall clock is 1e9 s ahead of the steady one: t0 is steady t0 - 1e9 s.
    const std::int64_t offset = 1'000'000'000 * s;
    const start_clock early = plan_start(t0, offset, t0 - offset - 30 * s, s / 5);
    BOOST_TEST(early.origin_steady_ns == t0 - offset);
    BOOST_TEST(early.origin_wall_ns() == t0);
    BOOST_TEST(early.late_ns == 0);
    // Inside the lead-in: still on the instant, not late.
    const start_clock close = plan_start(t0, offset, t0 - offset - s / 100, s / 5);
    BOOST_TEST(close.origin_wall_ns() == t0);
    BOOST_TEST(close.late_ns == 0);
    // Ready 1.5 s after it: starts at once, 1.5 s late.
    const start_clock late = plan_start(t0, offset, t0 - offset + 3 * s / 2, s / 5);
    BOOST_TEST(late.origin_steady_ns == t0 - offset + 3 * s / 2);
    BOOST_TEST(late.late_ns == 3 * s / 2);
    BOOST_TEST(late.origin_wall_ns() == t0 + 3 * s / 2);
}

BOOST_AUTO_TEST_SUITE_END()
