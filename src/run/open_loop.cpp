#include "openloop/run/open_loop.hpp"

#include "openloop/measure/event.hpp"
#include "openloop/run/runner.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

namespace openloop {

namespace net = boost::asio;

open_loop::open_loop(const run_plan& plan, net::io_context& io, client& cl, request_builder& requests,
                     scheduler_host& host)
    : o_(plan.options()), bounds_(bounds_of(o_)), io_(io), client_(cl), workload_(plan.load()), requests_(requests), host_(host), timer_(io) {}

void open_loop::start(steady::time_point origin) {
    origin_ = origin;
    net::co_spawn(io_, run(), [this](std::exception_ptr e) {
        if (!e) return;
        report_escape("the schedule", e);
        host_.schedule_done();
    });
}

void open_loop::stop() {
    stopping_ = true;
    timer_.cancel();
}

// An open-loop request ended: its bytes' memory goes to the next one built.
void open_loop::request_ended(finished_request& f) {
    requests_.recycle(f.request);
    release_waiting();
}

// Builds this shard's next request of the schedule into the queue; false when there is none:
// the arrivals ended, a trace was replayed once (no --loop), or (outside a sweep stage, whose
// end is judged as its predecessor goes) the next is past the run's bounds.
bool open_loop::prepare_next(arrival_process& arrivals, shard_walk& walk, send_queue& queue) {
    const bool trace = !o_.workload.trace_file.empty() && !o_.workload.trace_lengths_only;
    const auto arrival = walk.next([&](std::uint64_t g) -> std::optional<std::int64_t> {
        if (!trace) return arrivals.next_ns();
        if (!o_.workload.trace_loop && g >= workload_.size()) return std::nullopt;
        return workload_.trace_at_ns(g);
    });
    if (!arrival) return false;
    workload_.at(arrival->index, spec_);
    spec_.model = requests_.model_of(arrival->index);
    queue.push(queued_request{requests_.build(spec_, arrival->index), arrival->index, arrival->offset_ns,
                              arrival->warmup});
    return true;
}

// Requests are built ahead, in the slack before the next send (send_queue.hpp), so those due
// together leave back to back. One built and never sent (the run stopped) is counted nowhere.
net::awaitable<void> open_loop::run() {
    constexpr std::chrono::nanoseconds connect_ahead = std::chrono::seconds(1);
    arrival_process arrivals(o_.arrival);
    shard_walk walk(o_.shard, bounds_, !o_.stage_end);
    send_queue queue;
    bool source_open = true, admitted = false;  // admitted: the front passed the end-of-stage check
    const std::int64_t origin = to_ns(origin_);
    while (!stopping_) {
        // Judged once per request, as soon as the one before it went.
        if (!admitted && !queue.empty()) {
            const queued_request& front = queue.front();
            if (!front.warmup && host_.stage_done(front.offset_ns - offered_.first_offset_ns, offered_.measured))
                break;
            admitted = true;
        }
        const auto now = steady::now();
        const send_step step = queue.next(to_ns(now) - origin, source_open);
        if (step == send_step::done) break;
        if (step == send_step::prepare) {
            source_open = prepare_next(arrivals, walk, queue);
            queue.note_preparation(to_ns(steady::now()) - to_ns(now));
            // Responses read meanwhile keep timestamps near their arrival.
            co_await net::post(io_, net::use_awaitable);
            continue;
        }
        if (step == send_step::spin) {
            co_await net::post(io_, net::use_awaitable);
            continue;
        }
        if (step == send_step::wait) {
            // Connections for what is due within a second open now, off
            // the send path; a long wait wakes to do that in time.
            // No more than may be in flight at once: with --max-concurrency the rest wait their turn.
            const std::size_t cap = o_.max_concurrency > 0 ? o_.max_concurrency : o_.max_inflight;
            client_.want_connections(std::min(cap, queue.due_before(to_ns(now) - origin + connect_ahead.count())));
            const auto due = origin_ + std::chrono::nanoseconds(queue.front().offset_ns - queue.wake_margin_ns());
            const bool look_again = due - now > connect_ahead / 4;
            const auto wake = look_again ? now + connect_ahead / 4 : due;
            timer_.expires_at(wake);
            co_await timer_.async_wait();
            queue.note_wake(to_ns(steady::now()) - to_ns(wake));
            continue;
        }
        queued_request r = queue.pop();
        admitted = false;
        const std::int64_t intended = origin + r.offset_ns;
        const std::int64_t flags = r.warmup ? std::int64_t{flag_warmup} : 0;
        if (!r.warmup) {
            if (offered_.measured == 0) offered_.first_offset_ns = r.offset_ns;
            offered_.last_offset_ns = r.offset_ns;
            ++offered_.measured;
        }
        if (client_.in_flight() + waiting_.size() >= o_.max_inflight) {
            client_.emit(
                event::refusal(r.index, intended, r.request.input_tokens, r.request.max_tokens, flags, r.request.model));
            requests_.recycle(r.request);  // its bytes and splices serve the next request, as a sent one's do
            continue;
        }
        if (o_.max_concurrency > 0 && (client_.in_flight() >= o_.max_concurrency || !waiting_.empty())) {
            // vLLM's semaphore: it waits its turn, in arrival order; its clock already runs.
            r.offset_ns = intended;
            waiting_.push(std::move(r));
            continue;
        }
        host_.sent();
        client_.send(r.index, std::move(r.request), intended, flags);
        // Every request due now is spawned before any runs, so a group
        // sharing one send time starts on the wire together; then they
        // reach their sockets before the next is built or waited for.
        if (queue.next(to_ns(steady::now()) - origin, source_open) != send_step::send)
            co_await net::post(io_, net::use_awaitable);
    }
    if (waiting_.empty() || stopping_) {
        drop_waiting();
        host_.schedule_done();
    } else {
        schedule_ended_ = true;  // done once the last waiting request is sent
    }
}

// --max-concurrency: a request ended, so the longest waiting one goes, its wait ending now.
// Posted: this runs inside the ended request's coroutine, whose connection is not yet idle.
void open_loop::release_waiting() {
    if (waiting_.empty()) return;
    net::post(io_, [this] {
        if (stopping_) {
            drop_waiting();
            if (std::exchange(schedule_ended_, false)) host_.schedule_done();
            return;
        }
        while (!waiting_.empty() && client_.in_flight() < o_.max_concurrency) {
            queued_request r = waiting_.pop();
            host_.sent();
            client_.send(r.index, std::move(r.request), r.offset_ns, r.warmup ? std::int64_t{flag_warmup} : 0,
                         to_ns(steady::now()));
        }
        if (waiting_.empty() && schedule_ended_) {
            schedule_ended_ = false;
            host_.schedule_done();
        }
    });
}

// The run stopped with requests still waiting their turn: each is counted, never sent, as
// openloop's own cancellation.
void open_loop::drop_waiting() {
    for (std::size_t i = 0; i < waiting_.size(); ++i) {
        const queued_request& r = waiting_[i];
        const std::int64_t flags = r.warmup ? std::int64_t{flag_warmup} : 0;
        client_.emit(
            event::started(r.index, r.offset_ns, r.request.input_tokens, r.request.max_tokens, flags, r.request.model));
        client_.emit(event::failure(r.index, to_ns(steady::now()), error_class::cancelled, 0));
    }
    waiting_.clear();
}

}  // namespace openloop
