#include <boost/test/unit_test.hpp>

#include "openloop/measure/ring.hpp"

#include <chrono>
#include <cstdint>
#include <stdexcept>
#include <thread>

using openloop::spsc_ring;

namespace {

struct event {
    std::uint64_t request;
    std::int64_t t_ns;
};

}  // namespace

BOOST_AUTO_TEST_CASE(capacity_rounds_up_to_a_power_of_two) {
    BOOST_TEST(spsc_ring<int>(1).capacity() == 1u);
    BOOST_TEST(spsc_ring<int>(5).capacity() == 8u);
    BOOST_TEST(spsc_ring<int>(1024).capacity() == 1024u);
    BOOST_TEST(spsc_ring<int>(1025).capacity() == 2048u);
    BOOST_CHECK_THROW(spsc_ring<int>(0), std::invalid_argument);
}

BOOST_AUTO_TEST_CASE(indices_sit_on_their_own_cache_lines) {
    BOOST_TEST(alignof(spsc_ring<int>) >= openloop::cache_line_size);
    BOOST_TEST(sizeof(spsc_ring<int>) >= 3 * openloop::cache_line_size);
}

BOOST_AUTO_TEST_CASE(fill_and_drain_in_order) {
    spsc_ring<event> ring(6);
    event e{};
    BOOST_TEST(ring.size_approx() == 0u);
    BOOST_TEST(!ring.try_pop(e));
    // Several laps, so indices wrap past the slot count.
    for (std::uint64_t lap = 0; lap < 5; ++lap) {
        for (std::uint64_t i = 0; i < ring.capacity(); ++i) {
            BOOST_TEST(ring.try_push(event{lap * 100 + i, static_cast<std::int64_t>(i)}));
            BOOST_TEST(ring.size_approx() == i + 1);
        }
        BOOST_TEST(!ring.try_push(event{999, 0}));
        BOOST_TEST(ring.size_approx() == ring.capacity());
        for (std::uint64_t i = 0; i < ring.capacity(); ++i) {
            BOOST_TEST(ring.try_pop(e));
            BOOST_TEST(e.request == lap * 100 + i);
            BOOST_TEST(e.t_ns == static_cast<std::int64_t>(i));
        }
        BOOST_TEST(!ring.try_pop(e));
        BOOST_TEST(ring.size_approx() == 0u);
    }
}

BOOST_AUTO_TEST_CASE(interleaved_push_and_pop) {
    spsc_ring<int> ring(8);
    int next_in = 0;
    int next_out = 0;
    int v = 0;
    int fills = 0;
    for (int round = 0; round < 100; ++round) {
        for (int k = 0; k < 3; ++k) {
            BOOST_TEST(ring.try_push(next_in++));
        }
        for (int k = 0; k < 2; ++k) {
            BOOST_TEST(ring.try_pop(v));
            BOOST_TEST(v == next_out++);
        }
        // Net one per round; every fifth round fill up to the edge, then drain.
        if (ring.size_approx() == 5) {
            ++fills;
            for (int k = 0; k < 3; ++k) {
                BOOST_TEST(ring.try_push(next_in++));
            }
            BOOST_TEST(!ring.try_push(-1));
            while (ring.try_pop(v)) {
                BOOST_TEST(v == next_out++);
            }
        }
    }
    BOOST_TEST(fills == 20);
    BOOST_TEST(next_out == next_in);
}

BOOST_AUTO_TEST_CASE(full_ring_refuses_without_blocking) {
    spsc_ring<int> ring(1024);
    for (int i = 0; i < 1024; ++i) {
        BOOST_TEST(ring.try_push(i));
    }
    const auto start = std::chrono::steady_clock::now();
    int refused = 0;
    for (int i = 0; i < 100'000; ++i) {
        refused += ring.try_push(i) ? 0 : 1;
    }
    const auto elapsed = std::chrono::steady_clock::now() - start;
    BOOST_TEST(refused == 100'000);
    // 100k refusals in well under a second: each one returned at once.
    BOOST_TEST(elapsed < std::chrono::seconds(1));
    int v = -1;
    BOOST_TEST(ring.try_pop(v));
    BOOST_TEST(v == 0);
    BOOST_TEST(ring.try_push(7));
}

BOOST_AUTO_TEST_CASE(two_threads_deliver_every_value_once_in_order) {
    constexpr std::uint64_t total = 10'000'000;
    spsc_ring<std::uint64_t> ring(1024);
    std::uint64_t full_seen = 0;
    std::thread producer([&] {
        for (std::uint64_t i = 0; i < total; ++i) {
            // Yielding keeps the test quick when the two threads share a core.
            while (!ring.try_push(i)) {
                ++full_seen;
                std::this_thread::yield();
            }
        }
    });
    std::uint64_t expected = 0;
    std::uint64_t received = 0;
    std::uint64_t out_of_order = 0;
    std::uint64_t v = 0;
    while (expected < total) {
        if (!ring.try_pop(v)) {
            std::this_thread::yield();
            continue;
        }
        ++received;
        out_of_order += v != expected ? 1 : 0;
        expected = v + 1;
    }
    producer.join();
    BOOST_TEST(out_of_order == 0u);
    BOOST_TEST(received == total);
    BOOST_TEST(expected == total);
    BOOST_TEST(!ring.try_pop(v));
    BOOST_TEST_MESSAGE("producer found the ring full " << full_seen << " times");
}
