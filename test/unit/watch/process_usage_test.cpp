#include <boost/test/unit_test.hpp>

#include "openloop/watch/process_usage.hpp"

#include <chrono>
#include <cmath>
#include <vector>

#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_process_usage)

using namespace openloop;

BOOST_AUTO_TEST_CASE(self_has_memory_and_its_cpu_grows) {
    const auto a = read_process_usage(0);
    BOOST_TEST_REQUIRE(a.ok);
    BOOST_TEST(a.rss_bytes > 0);
    BOOST_TEST(a.cpu_seconds >= 0);
    // Spin for 300 ms of CPU at most; the clock ticks every 10 ms.
    volatile double x = 0;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(300);
    while (std::chrono::steady_clock::now() < until)
        for (int i = 0; i < 100000; ++i) x = x + std::sqrt(static_cast<double>(i));
    const auto b = read_process_usage(0);
    BOOST_TEST_REQUIRE(b.ok);
    BOOST_TEST(b.cpu_seconds > a.cpu_seconds);
    BOOST_TEST(b.cpu_seconds - a.cpu_seconds < 1.0);
}

BOOST_AUTO_TEST_CASE(self_by_pid_equals_self) {
    const auto u = read_process_usage(static_cast<int>(::getpid()));
    BOOST_TEST(u.ok);
    BOOST_TEST(u.rss_bytes > 0);
}

BOOST_AUTO_TEST_CASE(rss_follows_touched_memory) {
    const auto a = read_process_usage(0);
    std::vector<char> block(64u << 20, 1);
    const auto b = read_process_usage(0);
    BOOST_TEST(b.rss_bytes - a.rss_bytes > (48 << 20));
    BOOST_TEST(block[12345] == 1);
}

BOOST_AUTO_TEST_CASE(a_pid_that_does_not_exist) {
    // Above /proc/sys/kernel/pid_max's ceiling (4194304), so never a live pid.
    const auto u = read_process_usage(99'999'999);
    BOOST_TEST(!u.ok);
    BOOST_TEST(u.rss_bytes == -1);
    BOOST_TEST(u.cpu_seconds == -1.0);
    BOOST_TEST(!read_process_usage(-5).ok);
}

BOOST_AUTO_TEST_SUITE_END()
