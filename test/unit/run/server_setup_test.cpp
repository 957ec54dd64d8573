#include <boost/test/unit_test.hpp>

#include "openloop/base/stop_point.hpp"
#include "openloop/run/server_setup.hpp"
#include "openloop/run/stop_signals.hpp"

#include <chrono>
#include <csignal>
#include <stdexcept>
#include <thread>

#include <unistd.h>

BOOST_AUTO_TEST_SUITE(unit_server_setup)

using namespace std::chrono_literals;
using openloop::setup_call_limit;

// A call before the schedule waits the budget, or --timeout when that is shorter.
BOOST_AUTO_TEST_CASE(the_budget_or_a_shorter_timeout) {
    BOOST_TEST(setup_call_limit(0ms).count() == 10'000);
    BOOST_TEST(setup_call_limit(5s).count() == 5'000);
    BOOST_TEST(setup_call_limit(250ms).count() == 250);
    BOOST_TEST(setup_call_limit(10min).count() == 10'000);
}

// A step before the run (a tokenizer's load) under run_interruptible: it runs to its end when no
// signal comes; the first SIGINT stops it at its next stop point, and the run is told it was
// interrupted; what else it throws is thrown.
BOOST_AUTO_TEST_CASE(a_step_before_the_run_is_stopped_by_the_first_signal) {
    bool ran = false;
    BOOST_TEST(openloop::run_interruptible([&](const std::stop_token&) { ran = true; }, "testing"));
    BOOST_TEST(ran);

    int points = 0;
    const auto step = [&](const std::stop_token& stop) {
        ::kill(::getpid(), SIGINT);  // held: the watcher takes it
        const auto until = std::chrono::steady_clock::now() + 30s;
        while (std::chrono::steady_clock::now() < until) {
            ++points;
            openloop::stop_point(stop);
            std::this_thread::yield();
        }
    };
    const auto begin = std::chrono::steady_clock::now();
    BOOST_TEST(!openloop::run_interruptible(step, "testing"));
    const bool stopped = std::chrono::steady_clock::now() - begin < 30s;
    BOOST_TEST(stopped, "the step ran to its own end");
    BOOST_TEST(points >= 1);

    BOOST_CHECK_THROW(openloop::run_interruptible([](const std::stop_token&) { throw std::invalid_argument("bad file"); },
                                                  "testing"),
                      std::invalid_argument);
}

BOOST_AUTO_TEST_SUITE_END()
