#include <boost/test/unit_test.hpp>

#include "openloop/base/executor.hpp"
#include "openloop/wire/cancel_group.hpp"

#include <boost/asio/this_coro.hpp>

#include <chrono>
#include <stdexcept>
#include <string>
#include <vector>

BOOST_AUTO_TEST_SUITE(unit_cancel_group)

namespace net = boost::asio;
using openloop::cancel_group;

namespace {

// Waits an hour unless cancelled; says how the wait ended.
net::awaitable<void> wait_long(net::io_context& io, std::vector<std::string>& ends) {
    openloop::steady_timer t(io, std::chrono::hours(1));
    auto [ec] = co_await t.async_wait();
    ends.push_back(ec == net::error::operation_aborted ? "aborted" : "other");
}

net::awaitable<void> throws() {
    co_await net::post(co_await net::this_coro::executor, net::use_awaitable);
    throw std::runtime_error("boom");
}

}  // namespace

BOOST_AUTO_TEST_CASE(cancel_all_reaches_every_pending_operation) {
    net::io_context io{1};
    cancel_group group(io);
    std::vector<std::string> ends;
    int ended = 0;
    for (int i = 0; i < 3; ++i)
        group.spawn(wait_long(io, ends), [&](std::exception_ptr e) {
            BOOST_TEST(!e);
            ++ended;
        });
    io.run_for(std::chrono::milliseconds(50));
    BOOST_TEST(ended == 0);
    group.cancel_all();
    io.restart();
    io.run_for(std::chrono::seconds(5));
    BOOST_TEST(ended == 3);
    BOOST_TEST(ends == (std::vector<std::string>{"aborted", "aborted", "aborted"}), boost::test_tools::per_element());
    // Ended members are gone: a later cancel_all has nothing to do and a new member works.
    group.cancel_all();
    group.spawn(wait_long(io, ends), [&](std::exception_ptr) { ++ended; });
    io.restart();
    io.run_for(std::chrono::milliseconds(20));
    group.cancel_all();
    io.restart();
    io.run_for(std::chrono::seconds(5));
    BOOST_TEST(ended == 4);
}

BOOST_AUTO_TEST_CASE(an_escaped_exception_reaches_the_handler) {
    net::io_context io{1};
    cancel_group group(io);
    std::string what;
    group.spawn(throws(), [&](std::exception_ptr e) {
        BOOST_TEST_REQUIRE(static_cast<bool>(e));
        what = cancel_group::describe(e);
    });
    io.run_for(std::chrono::seconds(5));
    BOOST_TEST(what == "boom");
    BOOST_TEST(cancel_group::describe(std::make_exception_ptr(42)) == "an exception of unknown type");
}

BOOST_AUTO_TEST_SUITE_END()
