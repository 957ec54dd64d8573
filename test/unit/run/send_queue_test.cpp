#include <boost/test/unit_test.hpp>

#include "openloop/run/send_queue.hpp"
#include "printing.hpp"

#include <ostream>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_send_queue)

using namespace openloop;

namespace {

constexpr std::int64_t ms = 1'000'000;

queued_request request(std::uint64_t index, std::int64_t offset_ns, std::size_t bytes = 100) {
    queued_request r;
    r.request.bytes = std::string(bytes, 'x');
    r.index = index;
    r.offset_ns = offset_ns;
    return r;
}

send_queue_limits limits(std::size_t count, std::size_t bytes) {
    send_queue_limits l;
    l.max_requests = count;
    l.max_bytes = bytes;
    l.min_margin_ns = ms;
    return l;
}

}  // namespace

BOOST_AUTO_TEST_CASE(first_in_first_out) {
    send_queue q(limits(8, 1 << 20));
    for (std::uint64_t i = 0; i < 5; ++i) q.push(request(i, static_cast<std::int64_t>(i / 2) * ms, 10 + i));
    BOOST_TEST(q.size() == 5u);
    BOOST_TEST(q.bytes() == 10u + 11 + 12 + 13 + 14);
    for (std::uint64_t i = 0; i < 5; ++i) {
        BOOST_TEST(q.front().index == i);
        const queued_request r = q.pop();
        BOOST_TEST(r.index == i);
        BOOST_TEST(r.request.bytes.size() == 10 + i);
    }
    BOOST_TEST(q.empty());
    BOOST_TEST(q.bytes() == 0u);
}

BOOST_AUTO_TEST_CASE(bounded_by_count) {
    send_queue q(limits(3, 1 << 20));
    for (std::uint64_t i = 0; i < 3; ++i) {
        BOOST_TEST(q.has_room());
        q.push(request(i, 0));
    }
    BOOST_TEST(!q.has_room());
    q.pop();
    BOOST_TEST(q.has_room());
}

// The bytes bound stops the queue once reached; one request always fits,
// however large.
BOOST_AUTO_TEST_CASE(bounded_by_bytes_with_one_always_allowed) {
    send_queue q(limits(64, 1000));
    q.push(request(0, 0, 600));
    BOOST_TEST(q.has_room());
    q.push(request(1, 0, 600));
    BOOST_TEST(!q.has_room());  // 1200 >= 1000: stop, though the count allows more
    q.pop();
    BOOST_TEST(q.has_room());  // 600 < 1000

    send_queue big(limits(64, 1000));
    BOOST_TEST(big.has_room());
    big.push(request(0, 0, 5000));
    BOOST_TEST(!big.has_room());
    BOOST_TEST(big.next(-10 * ms, true) == send_step::wait);
    big.pop();
    BOOST_TEST(big.next(0, true) == send_step::prepare);  // empty: one more, whatever its size
}

BOOST_AUTO_TEST_CASE(builds_only_in_slack_time) {
    send_queue q(limits(8, 1 << 20));
    BOOST_TEST(q.next(0, true) == send_step::prepare);  // nothing queued: always build one
    BOOST_TEST(q.next(0, false) == send_step::done);
    q.push(request(0, 10 * ms));
    BOOST_TEST(q.next(0, true) == send_step::prepare);        // 10 ms of slack > 1 ms margin
    BOOST_TEST(q.next(9 * ms, true) == send_step::wait);      // 1 ms left: no build may delay it
    BOOST_TEST(q.next(8 * ms, false) == send_step::wait);     // nothing left to build
    BOOST_TEST(q.next(10 * ms, true) == send_step::send);     // due
    BOOST_TEST(q.next(11 * ms, true) == send_step::send);     // late: still sent, before any build
}

// Requests sharing a send time go one after the other with no build between.
BOOST_AUTO_TEST_CASE(a_due_group_is_sent_back_to_back) {
    send_queue q(limits(8, 1 << 20));
    for (std::uint64_t i = 0; i < 4; ++i) q.push(request(i, 5 * ms));
    q.push(request(4, 50 * ms));
    std::uint64_t sent = 0;
    while (q.next(5 * ms, true) == send_step::send) {
        BOOST_TEST(q.pop().index == sent);
        ++sent;
    }
    BOOST_TEST(sent == 4u);
    BOOST_TEST(q.next(5 * ms, true) == send_step::prepare);  // slack again before the next
}

BOOST_AUTO_TEST_CASE(full_queue_waits) {
    send_queue q(limits(2, 1 << 20));
    q.push(request(0, 100 * ms));
    q.push(request(1, 200 * ms));
    BOOST_TEST(q.next(0, true) == send_step::wait);
}

// The margin follows the longest recent build, doubled, and decays.
BOOST_AUTO_TEST_CASE(margin_follows_the_builds) {
    send_queue q(limits(8, 1 << 20));
    BOOST_TEST(q.margin_ns() == ms);  // the floor
    q.note_preparation(ms / 4);
    BOOST_TEST(q.margin_ns() == ms);
    q.note_preparation(3 * ms);
    BOOST_TEST(q.margin_ns() == 6 * ms);
    q.note_preparation(ms / 10);  // a sixteenth of the peak fades per build
    BOOST_TEST(q.margin_ns() == 2 * (3 * ms - 3 * ms / 16));
    for (int i = 0; i < 200; ++i) q.note_preparation(ms / 10);
    BOOST_TEST(q.margin_ns() == ms);

    q.note_preparation(4 * ms);
    q.push(request(0, 10 * ms));
    BOOST_TEST(q.next(1 * ms, true) == send_step::prepare);  // 9 ms of slack > 8 ms
    BOOST_TEST(q.next(3 * ms, true) == send_step::wait);     // 7 ms < 8 ms
}

// A wait ends the wake margin before the send time, and what is left of it
// is spun through; the margin follows how late the timer woke, within bounds.
BOOST_AUTO_TEST_CASE(the_last_of_a_wait_is_spun_through) {
    constexpr std::int64_t us = 1'000;
    send_queue q(limits(1, 1 << 20));  // full with one: never builds
    q.push(request(0, 10 * ms));
    BOOST_TEST(q.wake_margin_ns() == 200 * us);  // before any wake was seen
    BOOST_TEST(q.next(10 * ms - 201 * us, true) == send_step::wait);
    BOOST_TEST(q.next(10 * ms - 200 * us, true) == send_step::spin);
    BOOST_TEST(q.next(10 * ms - 1, true) == send_step::spin);
    BOOST_TEST(q.next(10 * ms, true) == send_step::send);

    q.note_wake(700 * us);
    BOOST_TEST(q.wake_margin_ns() == 700 * us);
    q.note_wake(0);  // a sixteenth of the peak fades per wake
    BOOST_TEST(q.wake_margin_ns() == 700 * us - 700 * us / 16);
    for (int i = 0; i < 200; ++i) q.note_wake(0);
    BOOST_TEST(q.wake_margin_ns() == 50 * us);  // the floor
    q.note_wake(30 * ms);                        // a host that stole the vCPU for 30 ms
    BOOST_TEST(q.wake_margin_ns() == ms);        // the ceiling: spinning costs a core
}

BOOST_AUTO_TEST_CASE(counts_what_is_due_soon) {
    send_queue q(limits(8, 1 << 20));
    BOOST_TEST(q.due_before(ms) == 0u);
    for (std::uint64_t i = 0; i < 3; ++i) q.push(request(i, 5 * ms));
    q.push(request(3, 900 * ms));
    q.push(request(4, 1500 * ms));
    BOOST_TEST(q.due_before(5 * ms) == 0u);
    BOOST_TEST(q.due_before(5 * ms + 1) == 3u);
    BOOST_TEST(q.due_before(1000 * ms) == 4u);
    BOOST_TEST(q.due_before(2000 * ms) == 5u);
}

BOOST_AUTO_TEST_SUITE_END()
