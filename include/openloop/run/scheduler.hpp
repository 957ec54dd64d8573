#pragma once
// What a load mode is to the run (run_driver.hpp): something that sends the
// run's requests on its schedule from the schedule's origin on, says when it
// will send no more, and stops when told. One class per mode: open_loop (an
// arrival schedule), closed_loop (N workers), session_loop (multi-turn
// sessions). The driver owns the rest of the run's life: Ctrl-C and its
// grace, the drain after the last send, the overload and stage watches,
// failing fast, and one stop for them all. Everything runs on the io thread.
// (MLPerf LoadGen's QueryScheduler<scenario> splits its scenarios alike.)

#include "openloop/base/clock.hpp"
#include "openloop/load/shard.hpp"
#include "openloop/run/runner.hpp"
#include "openloop/wire/cancel_group.hpp"
#include "openloop/wire/client.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <exception>

namespace openloop {

inline std::int64_t to_ns(steady::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// The run's warm-up and window, as every mode judges them.
inline schedule_bounds bounds_of(const run_options& o) {
    return {o.warmup_requests, o.warmup_s, o.num_requests, o.duration_s, o.all_bounds};
}

// What escaped a coroutine of the run: said, so the run goes on rather
// than hanging on a request that never ended.
inline void report_escape(const char* what, std::exception_ptr e) {
    std::fprintf(stderr, "openloop: %s failed: %s\n", what, cancel_group::describe(e).c_str());
}

// What a scheduler tells the run's driver.
class scheduler_host {
public:
    // A request goes out now (whatever the mode, the drain counts from the first).
    virtual void sent() = 0;
    // A request sent at from_ns ended so: the drain's longest E2E, failing fast.
    virtual void ended(std::int64_t from_ns, request_end end) = 0;
    // A sweep stage's end rule (stage_end.hpp), asked before each measured send: has the
    // stage seen enough, window_ns after its first measured send, measured requests sent?
    virtual bool stage_done(std::int64_t window_ns, std::uint64_t measured) = 0;
    // The last arrival came, and what it started goes on by itself (a session's later turns):
    // --drain, when given, limits how long.
    virtual void arrivals_over() = 0;
    // Nothing more will be sent: the drain after the last send starts.
    virtual void schedule_done() = 0;

protected:
    ~scheduler_host() = default;
};

// What a schedule offered, counted by the mode that offers on a schedule (the open loop).
struct offered_load {
    std::uint64_t measured = 0;        // measured requests offered: sent, refused or queued
    std::int64_t first_offset_ns = 0;  // the first's and the last's intended send times, from the origin
    std::int64_t last_offset_ns = 0;
    // Measured requests per second of schedule: what a trace replay offered.
    double rate() const {
        const double span = static_cast<double>(last_offset_ns - first_offset_ns) / 1e9;
        return measured > 1 && span > 0 ? static_cast<double>(measured - 1) / span : 0.0;
    }
};

class scheduler {
public:
    virtual ~scheduler() = default;

    // Sends from origin on; tells the host schedule_done() once, when it will send no more.
    virtual void start(steady::time_point origin) = 0;
    // Ctrl-C, an overload, failing fast, or the drain after the last arrival ran out: nothing
    // more is sent, and what waits (a timer, a session thinking) ends now; requests in flight
    // end as the run lets them.
    virtual void stop() = 0;
    // A request sent with client::send ended (the driver has noted it): its bytes and its
    // place are free.
    virtual void request_ended(finished_request&) {}
    // Requests held back unsent (--max-concurrency's wait list), to say so on Ctrl-C.
    virtual std::size_t waiting() const { return 0; }
    // What it offered on its schedule: its offered rate, and when a sweep stage's watch starts.
    virtual const offered_load& offered() const {
        static const offered_load none;
        return none;
    }
};

}  // namespace openloop
