#pragma once
// The open loop's requests, prepared ahead of their send time. Building a
// request takes long next to sending it (a Mooncake prompt of 10k+ tokens is
// about a millisecond), so requests that share one send time, built one after
// the other as they went out, left a build apart: a group of 16 took 15 ms or
// more. Built ahead, in the slack before the next send, they leave back to back.
// Pure: the open loop (open_loop.hpp) tells it the time and does the building
// and the sending.

#include "openloop/base/fifo.hpp"
#include "openloop/wire/request_writer.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace openloop {

// One request built and waiting for its send time.
struct queued_request {
    prepared_request request;
    std::uint64_t index = 0;
    std::int64_t offset_ns = 0;  // intended send time, from the schedule's origin
    bool warmup = false;
};

struct send_queue_limits {
    std::size_t max_requests = 64;
    std::size_t max_bytes = std::size_t{64} << 20;
    // The least slack a build is started in, whatever the builds took so far:
    // room for a timer's wake-up and a scheduler's hiccup.
    std::int64_t min_margin_ns = 250'000;
    // How early the scheduler wakes before a send, to look again until it is
    // due: follows the timer's recent lateness (a virtual machine's vCPU can
    // take 0.1-1 ms to wake), within these bounds.
    std::int64_t min_wake_ns = 50'000;
    std::int64_t max_wake_ns = 1'000'000;
};

// What the scheduler does next.
enum class send_step {
    send,     // the front is due: send it (then ask again: those due with it follow at once)
    prepare,  // build the next request: there is room, and slack before the front is due
    spin,     // the front is due within the wake margin: let other work run, then ask again
    wait,     // sleep until the wake margin before the front's send time
    done,     // nothing queued and nothing left to build
};

class send_queue {
public:
    explicit send_queue(send_queue_limits limits = {});

    // At now_ns (from the schedule's origin), with more requests to build
    // while source_open. A request is built only while the front's send time
    // is more than margin_ns() away, so a build never delays a due send, and
    // only while the queue has room; an empty queue always builds (one
    // request, however large, is always allowed).
    send_step next(std::int64_t now_ns, bool source_open) const;

    // Room for one more: an empty queue always has it; otherwise both bounds
    // must still hold, so the queue stops once either is reached (the bytes
    // may pass max_bytes by the last request built, whose size is known only
    // once built).
    bool has_room() const;

    void push(queued_request r);  // in send order
    const queued_request& front() const { return slots_.front(); }
    queued_request pop();
    bool empty() const { return slots_.empty(); }
    std::size_t size() const { return slots_.size(); }
    std::size_t bytes() const { return bytes_; }

    // How long a build took: the margin follows the longest recent one, decaying
    // by a sixteenth per build so one slow build (a cold cache, a preemption)
    // does not keep the margin wide for the rest of a run.
    void note_preparation(std::int64_t ns);
    // Twice the recent longest build, at least min_margin_ns.
    std::int64_t margin_ns() const;

    // How late a wait's timer woke: the wake margin follows the latest
    // lateness, decaying by a sixteenth per wake.
    void note_wake(std::int64_t late_ns);
    // How long before the front's send time a wait ends.
    std::int64_t wake_margin_ns() const;

    // Queued requests due before until_ns (from the schedule's origin).
    std::size_t due_before(std::int64_t until_ns) const;

private:
    send_queue_limits limits_;
    fifo<queued_request> slots_;  // max_requests slots, allocated once
    std::size_t bytes_ = 0;
    std::int64_t longest_ns_ = 0;
    std::int64_t late_ns_ = 200'000;
};

}  // namespace openloop
