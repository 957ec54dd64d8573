#include <boost/test/unit_test.hpp>

#include "openloop/measure/ring.hpp"

#include <cstdint>
#include <stdexcept>
#include <thread>

BOOST_AUTO_TEST_SUITE(unit_ring)


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
    // One thread, no consumer: a push that waited for room would never return.
    int refused = 0;
    for (int i = 0; i < 100'000; ++i) {
        refused += ring.try_push(i) ? 0 : 1;
    }
    BOOST_TEST(refused == 100'000);
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

namespace {

// The run's event: 48 bytes, a million of them.
struct wide_event {
    std::uint64_t request;
    std::int64_t t_ns, v, a, b, kind;
};

// The ring's own pages resident (mincore), not the process's RSS: a
// sanitizer's shadow of the pages written stays when they are given back.
template <class T>
double resident_mib(const spsc_ring<T>& ring) {
    return static_cast<double>(ring.resident_bytes()) / (1 << 20);
}

// Pushes n events numbered from next_in, popping whenever `every` are in
// the ring (0: never), as a reporter that keeps up does; the events out of
// order or refused.
std::uint64_t stream(spsc_ring<wide_event>& ring, std::uint64_t n, std::uint64_t every, std::uint64_t& next_in,
                     std::uint64_t& next_out) {
    std::uint64_t wrong = 0;
    wide_event e{};
    for (std::uint64_t i = 0; i < n; ++i) {
        wrong += ring.try_push(wide_event{next_in++, 0, 0, 0, 0, 0}) ? 0 : 1;
        if (every > 0 && i % every == every - 1) {
            while (ring.try_pop(e)) wrong += e.request == next_out++ ? 0 : 1;
        }
    }
    return wrong;
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_large_ring_holds_the_memory_of_what_it_holds_not_of_every_slot_it_passed) {
    spsc_ring<wide_event> ring(1u << 20);  // 48 MiB of slots
    const double built = resident_mib(ring);
    BOOST_TEST(ring.hot_slots() == ring.capacity() / 8);
    // Its hot eighth (6 MiB) is resident from the start, the rest only when used.
    BOOST_TEST(built >= 6.0);
    BOOST_TEST(built < 6.5);
    // Three laps with a few events in the ring at a time: a ring that walked
    // every slot would hold all 48 MiB after the first.
    std::uint64_t next_in = 0, next_out = 0;
    BOOST_TEST(stream(ring, 3 * ring.capacity(), 8, next_in, next_out) == 0u);
    BOOST_TEST(next_out == next_in);
    const double grown = resident_mib(ring) - built;
    BOOST_TEST_MESSAGE("a ring of 48 MiB: " << built << " MiB resident once built, " << grown
                                            << " MiB more after three laps");
    BOOST_TEST(grown < 0.1);
}

BOOST_AUTO_TEST_CASE(a_burst_into_the_cold_slots_is_handed_back_once_read) {
    spsc_ring<wide_event> ring(1u << 20);
    const double built = resident_mib(ring);
    // Half the ring unread: the producer goes on past the hot slots.
    std::uint64_t next_in = 0, next_out = 0;
    BOOST_TEST(stream(ring, ring.capacity() / 2, 0, next_in, next_out) == 0u);
    const double burst = resident_mib(ring) - built;
    BOOST_TEST(burst > 17.0);  // 18 MiB of cold slots
    // Read, then a lap with the consumer keeping up: back in the hot slots.
    BOOST_TEST(stream(ring, ring.capacity(), 8, next_in, next_out) == 0u);
    BOOST_TEST(next_out == next_in);
    const double after = resident_mib(ring) - built;
    BOOST_TEST_MESSAGE("a burst of half a ring: " << burst << " MiB resident more, " << after << " MiB once read");
    // At most the one cold part (a 64th, 0.75 MiB) the consumer is reading.
    BOOST_TEST(after < 0.8);
}

BOOST_AUTO_TEST_CASE(a_cold_part_is_written_again_only_after_it_was_read_whole) {
    spsc_ring<wide_event> ring(1u << 17);
    const std::size_t part = ring.release_part(), hot = ring.hot_slots();
    BOOST_TEST_REQUIRE(part > 1u);
    std::uint64_t next_in = 0, next_out = 0;
    // How many pushes go in before the ring is full.
    const auto fill = [&] {
        std::uint64_t n = 0;
        while (ring.try_push(wide_event{next_in, 0, 0, 0, 0, 0})) ++next_in, ++n;
        return n;
    };
    std::uint64_t wrong = 0;
    const auto pop = [&](std::size_t n) {
        wide_event e{};
        for (std::size_t i = 0; i < n; ++i) wrong += ring.try_pop(e) && e.request == next_out++ ? 0 : 1;
    };
    BOOST_TEST(fill() == ring.capacity());
    for (int lap = 0; lap < 3; ++lap) {
        // The hot slots read are written again at once...
        pop(hot);
        BOOST_TEST(fill() == hot);
        // ... a cold part only once read whole: its pages were handed back.
        pop(part - 1);
        BOOST_TEST(fill() == 0u);
        BOOST_TEST(ring.size_approx() == ring.capacity());
        pop(1);
        BOOST_TEST(fill() == part);
        pop(ring.capacity() - hot - part);
        BOOST_TEST(fill() == ring.capacity() - hot - part);
    }
    BOOST_TEST(wrong == 0u);
}

BOOST_AUTO_TEST_CASE(two_threads_on_a_ring_that_hands_pages_back_deliver_every_value_once_in_order) {
    // A 64-byte value in a ring of 65,536: hot slots 8,192, cold parts of
    // 1,024 (64 KiB). The producer finds the ring full again and again, so
    // it writes cold parts as soon as they are handed back, and goes back to
    // the hot slots whenever the consumer catches up.
    struct value {
        std::uint64_t n;
        std::uint64_t pad[7];
    };
    constexpr std::uint64_t total = 1'000'000;
    spsc_ring<value> ring(1u << 16);
    BOOST_TEST_REQUIRE(ring.release_part() == 1024u);
    std::thread producer([&] {
        for (std::uint64_t i = 0; i < total; ++i) {
            while (!ring.try_push(value{i, {i, i, i, i, i, i, i}})) std::this_thread::yield();
        }
    });
    std::uint64_t expected = 0, wrong = 0;
    value v{};
    while (expected < total) {
        if (!ring.try_pop(v)) {
            std::this_thread::yield();
            continue;
        }
        // A page handed back while the producer wrote it would read as zeros.
        wrong += v.n != expected || v.pad[6] != expected ? 1 : 0;
        expected = v.n + 1;
    }
    producer.join();
    BOOST_TEST(wrong == 0u);
    BOOST_TEST(!ring.try_pop(v));
}

BOOST_AUTO_TEST_SUITE_END()
