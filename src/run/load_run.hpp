#pragma once
// The io thread's side of one run, for runner.cpp: the open-loop scheduler
// (requests built ahead in send_queue, sent on time, refused past
// --max-inflight, queued past --max-concurrency), the closed-loop workers,
// Ctrl-C and its grace, the drain after the last send, the overload abort and
// failing fast. Everything here runs on the one io thread.

#include "openloop/base/clock.hpp"
#include "openloop/base/executor.hpp"
#include "openloop/load/shard.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/run/drain.hpp"
#include "openloop/run/fail_fast.hpp"
#include "openloop/run/request_body.hpp"
#include "openloop/run/runner.hpp"
#include "openloop/run/send_queue.hpp"
#include "session_loop.hpp"
#include "openloop/run/start_clock.hpp"
#include "openloop/run/stage_end.hpp"
#include "openloop/wire/client.hpp"
#include "openloop/wire/request_writer.hpp"

#include <boost/asio.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <deque>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

namespace net = boost::asio;

inline std::int64_t to_ns(steady::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

// Everything the io thread's coroutines share during one run.
class load_run {
public:
    // signals: the run's SIGINT/SIGTERM set, made before its setup so no signal is lost.
    load_run(const run_options& o, const client_options& co, net::io_context& io, client& cl, workload& w,
             net::signal_set& signals)
        : o_(o), co_(co), io_(io), client_(cl), workload_(w), body_(o), timer_(io), grace_(io), signals_(signals) {}

    // A signal stopped the setup: start() sends nothing and the run ends at once, interrupted.
    void stop_before_start() {
        stopping_ = true;
        interrupted_ = true;
    }

    // The schedule starts at clock's origin (start_clock.hpp).
    void start(std::string model, const start_clock& clock) {
        model_ = std::move(model);
        origin_ = steady::time_point(std::chrono::nanoseconds(clock.origin_steady_ns));
        client_.on_end([this](finished_request& f) { ended(f); });
        signals_.async_wait([this](const boost::system::error_code& ec, int) { on_signal(ec); });
        if (stopping_) {
            scheduling_ = false;
            net::post(io_, [this] { maybe_finish(); });
            return;
        }
        if (o_.sessions.enabled()) {
            sessions_.emplace(o_, bounds_, io_, client_, workload_,
                              session_loop::hooks{[this](const request_spec& spec, std::uint64_t index) {
                                                      return prepare(spec, index);
                                                  },
                                                  [this] { note_send(); },
                                                  [this](std::int64_t from, request_end end) { note_end(from, end); },
                                                  [this] { sessions_arrived(); }, [this] { schedule_done(); }});
            sessions_->start(origin_);
        } else if (o_.concurrency > 0) {
            workers_ = o_.concurrency;
            timer_.expires_at(origin_);
            timer_.async_wait([this](const boost::system::error_code&) {
                for (int i = 0; i < o_.concurrency; ++i) {
                    client_.spawn(worker(), [this](std::exception_ptr e) {
                        if (!e) return;
                        report("a closed-loop worker", e);
                        worker_ended();
                    });
                }
            });
        } else {
            net::co_spawn(io_, open_loop(), [this](std::exception_ptr e) {
                if (!e) return;
                report("the schedule", e);
                schedule_done();
            });
        }
        if (stage_end_) {
            net::co_spawn(io_, watch_stage(), [](std::exception_ptr e) {
                if (e) report("the stage's queue watch", e);
            });
        }
        if (o_.overload_inflight > 0) {
            net::co_spawn(io_, watch_overload(), [](std::exception_ptr e) {
                if (e) report("the overload watch", e);
            });
        }
    }

    bool overloaded() const { return overloaded_; }
    bool stage_undecided() const { return stage_end_ && !stage_end_->decided(); }
    double stage_window_s() const { return stage_window_s_; }
    // Empty unless the run stopped early (fail_fast.hpp): then why.
    const std::string& stop_reason() const { return stop_reason_; }

    bool interrupted() const { return interrupted_; }
    // Measured requests per second of schedule: what a trace replay offered.
    double offered_rate() const {
        const double span = static_cast<double>(last_offset_ - first_offset_) / 1e9;
        return offered_ > 1 && span > 0 ? static_cast<double>(offered_ - 1) / span : 0.0;
    }
    std::int64_t origin_ns() const { return to_ns(origin_); }
    double drain_s() const { return drain_s_; }

private:
    // The request's bytes, prepared before its send time.
    prepared_request prepare(const request_spec& spec, std::uint64_t index) {
        prepared_request p;
        body_text_.clear();
        body_.append(body_text_, spec, model_);
        if (!spare_bytes_.empty()) {
            p.bytes = std::move(spare_bytes_.back());
            spare_bytes_.pop_back();
        }
        p.head = write_http_request(p.bytes, co_, o_.request_id_prefix, index, body_text_);
        p.input_tokens = spec.input_tokens;
        p.max_tokens = spec.max_tokens;
        return p;
    }

    // A sweep stage's end rule says its window is over (the run's own bounds are the walk's).
    bool stage_done(std::int64_t offset_ns, std::uint64_t measured) {
        if (!stage_end_ || measured == 0) return false;
        stage_window_s_ = static_cast<double>(offset_ns - first_offset_) / 1e9;
        return stage_end_->done(stage_window_s_, measured);
    }

    // An open-loop request ended: its bytes' memory goes to the next one built.
    void ended(finished_request& f) {
        note_end(f.intended_ns, f.end);
        if (stage_end_ && (f.flags & flag_warmup) == 0 && f.end.failure == error_class::none) {
            stage_end_->completed(static_cast<double>(to_ns(steady::now()) - f.intended_ns) / 1e9);
        }
        if (spare_bytes_.size() < max_spare_bytes) {
            f.request.bytes.clear();
            spare_bytes_.push_back(std::move(f.request.bytes));
        }
        release_waiting();
        maybe_finish();
    }

    // Builds this shard's next request of the schedule into the queue; false when there is none:
    // the arrivals ended, a trace was replayed once (no --loop), or (outside a sweep stage, whose
    // end is judged as its predecessor goes) the next is past the run's bounds.
    bool prepare_next(arrival_process& arrivals, shard_walk& walk, send_queue& queue) {
        const bool trace = !o_.workload.trace_file.empty() && !o_.workload.trace_lengths_only;
        const auto arrival = walk.next([&](std::uint64_t g) -> std::optional<std::int64_t> {
            if (!trace) return arrivals.next_ns();
            if (!o_.workload.trace_loop && g >= workload_.size()) return std::nullopt;
            return workload_.trace_at_ns(g);
        });
        if (!arrival) return false;
        workload_.at(arrival->index, spec_);
        queue.push(queued_request{prepare(spec_, arrival->index), arrival->index, arrival->offset_ns, arrival->warmup});
        return true;
    }

    // Requests are built ahead, in the slack before the next send (send_queue.hpp), so those due
    // together leave back to back. One built and never sent (the run stopped) is counted nowhere.
    net::awaitable<void> open_loop() {
        constexpr std::chrono::nanoseconds connect_ahead = std::chrono::seconds(1);
        arrival_process arrivals(o_.arrival);
        shard_walk walk(o_.shard, bounds_, !stage_end_);
        send_queue queue;
        bool source_open = true, admitted = false;  // admitted: the front passed the end-of-stage check
        const std::int64_t origin = to_ns(origin_);
        std::uint64_t measured = 0;
        while (!stopping_) {
            // Judged once per request, as soon as the one before it went.
            if (!admitted && !queue.empty()) {
                const queued_request& front = queue.front();
                if (!front.warmup && stage_done(front.offset_ns, measured)) break;
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
                client_.want_connections(queue.due_before(to_ns(now) - origin + connect_ahead.count()));
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
                if (offered_ == 0) first_offset_ = r.offset_ns;
                last_offset_ = r.offset_ns;
                ++offered_;
                ++measured;
            }
            if (client_.in_flight() + waiting_.size() >= o_.max_inflight) {
                client_.emit(event::refusal(r.index, intended, r.request.input_tokens, r.request.max_tokens, flags));
                continue;
            }
            if (o_.max_concurrency > 0 && (client_.in_flight() >= o_.max_concurrency || !waiting_.empty())) {
                // vLLM's semaphore: it waits its turn, in arrival order; its clock already runs.
                r.offset_ns = intended;
                waiting_.push_back(std::move(r));
                continue;
            }
            note_send();
            client_.send(r.index, std::move(r.request), intended, flags);
            // Every request due now is spawned before any runs, so a group
            // sharing one send time starts on the wire together; then they
            // reach their sockets before the next is built or waited for.
            if (queue.next(to_ns(steady::now()) - origin, source_open) != send_step::send)
                co_await net::post(io_, net::use_awaitable);
        }
        if (waiting_.empty() || stopping_) {
            drop_waiting();
            schedule_done();
        } else {
            schedule_ended_ = true;  // done once the last waiting request is sent
        }
    }

    // --max-concurrency: a request ended, so the longest waiting one goes, its wait ending now.
    // Posted: this runs inside the ended request's coroutine, whose connection is not yet idle.
    void release_waiting() {
        if (waiting_.empty()) return;
        net::post(io_, [this] {
            if (stopping_) {
                drop_waiting();
                if (std::exchange(schedule_ended_, false)) schedule_done();
                return;
            }
            while (!waiting_.empty() && client_.in_flight() < o_.max_concurrency) {
                queued_request r = std::move(waiting_.front());
                waiting_.pop_front();
                note_send();
                client_.send(r.index, std::move(r.request), r.offset_ns, r.warmup ? std::int64_t{flag_warmup} : 0,
                             to_ns(steady::now()));
            }
            if (waiting_.empty() && schedule_ended_) {
                schedule_ended_ = false;
                schedule_done();
            }
        });
    }

    // The run stopped with requests still waiting their turn: each is counted, never sent, as
    // openloop's own cancellation.
    void drop_waiting() {
        for (const queued_request& r : waiting_) {
            const std::int64_t flags = r.warmup ? std::int64_t{flag_warmup} : 0;
            client_.emit(event::started(r.index, r.offset_ns, r.request.input_tokens, r.request.max_tokens, flags));
            client_.emit(event::failure(r.index, to_ns(steady::now()), error_class::cancelled, 0));
        }
        waiting_.clear();
    }

    // Closed loop: each worker sends its next request when the last one ends. A shard's requests
    // are every count-th of the global indexes, so the shards' ids and contents never collide.
    net::awaitable<void> worker() {
        const auto count = static_cast<std::uint64_t>(o_.shard.count), first = static_cast<std::uint64_t>(o_.shard.index);
        while (!stopping_) {
            const std::int64_t offset = to_ns(steady::now()) - to_ns(origin_);
            const std::uint64_t index = next_index_ * count + first;
            const bool warm = bounds_.is_warmup(offset, index);
            if (!warm && bounds_.past(offset, measured_ * count + first)) break;
            ++next_index_;
            if (!warm) ++measured_;
            workload_.at(index, spec_);
            prepared_request p = prepare(spec_, index);
            const std::int64_t sent = to_ns(steady::now());
            note_send();
            const request_end end = co_await client_.run(index, std::move(p), sent, warm ? std::int64_t{flag_warmup} : 0);
            note_end(sent, end);
        }
        worker_ended();
    }

    void worker_ended() {
        --workers_;
        if (workers_ == 0) {
            schedule_done();
        } else {
            maybe_finish();
        }
    }

    // What escaped a coroutine of the run: said, so the run goes on rather
    // than hanging on a request that never ended.
    static void report(const char* what, std::exception_ptr e) {
        std::fprintf(stderr, "openloop: %s failed: %s\n", what, cancel_group::describe(e).c_str());
    }

    // A server that cannot keep up makes in-flight grow without bound; past
    // the limit nothing more is learned by waiting, so the run stops.
    net::awaitable<void> watch_overload() {
        steady_timer tick(io_);
        while (!finished_ && !stopping_) {
            tick.expires_after(std::chrono::milliseconds(250));
            co_await tick.async_wait();
            if (client_.in_flight() > o_.overload_inflight) {
                overloaded_ = true;
                stopping_ = true;
                timer_.cancel();
                if (sessions_) sessions_->stop();
                client_.close_all();
                maybe_finish();
            }
        }
    }

    // The in-flight count on the stage rule's step, from the first measured send.
    net::awaitable<void> watch_stage() {
        steady_timer tick(io_);
        const auto step = std::chrono::nanoseconds(static_cast<std::int64_t>(o_.stage_end->step_s * 1e9));
        auto at = steady::now() + step;
        while (scheduling_ && !stopping_) {
            tick.expires_at(at);
            co_await tick.async_wait();
            if (offered_ > 0) stage_end_->sample(client_.in_flight());
            at += step;
        }
    }

    // What the default drain is computed from: the longest E2E of the
    // requests that ended, from their (intended) send time.
    void note_send() {
        if (first_send_ns_ == 0) first_send_ns_ = to_ns(steady::now());
    }
    void note_end(std::int64_t from_ns, request_end end) {
        longest_ns_ = std::max(longest_ns_, to_ns(steady::now()) - from_ns);
        if (!stopping_ && fail_fast_.observe(end.failure, end.status)) stop_early();
    }

    // Every request so far was refused the same way: say the server's
    // reason, cancel what is in flight and write what there is.
    void stop_early() {
        stop_reason_ = fail_fast_reason(fail_fast_.failure(), fail_fast_.status(), client_.messages());
        std::fprintf(stderr, "openloop: %s\n", stop_reason_.c_str());
        stopping_ = true;
        timer_.cancel();
        if (sessions_) sessions_->stop();
        // Posted: this runs inside a request's coroutine, which close_all would cancel.
        net::post(io_, [this] {
            client_.close_all();
            maybe_finish();
        });
    }

    // The last session arrived: those going on end by themselves, unless --drain gives them a limit.
    void sessions_arrived() {
        if (o_.drain_s <= 0 || stopping_) return;
        drain_s_ = o_.drain_s;
        grace_.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(drain_s_ * 1000)));
        grace_.async_wait([this](const boost::system::error_code& e) {
            if (e || finished_) return;
            std::fprintf(stderr, "openloop: the %.3g s drain after the last session arrived ran out; its sessions "
                                 "still going are cut\n", drain_s_);
            sessions_->stop();
            drain_over();
        });
    }

    void schedule_done() {
        scheduling_ = false;
        if (!stopping_ && client_.in_flight() > 0) arm_drain();
        maybe_finish();
    }

    // A server that never answers, or streams forever, would hold the run
    // open: the requests left after the drain limit are cancelled.
    void arm_drain() {
        const std::int64_t now = to_ns(steady::now());
        const std::optional<double> longest =
            longest_ns_ > 0 ? std::optional<double>(static_cast<double>(longest_ns_) / 1e9) : std::nullopt;
        const double first_age = first_send_ns_ > 0 ? static_cast<double>(now - first_send_ns_) / 1e9 : 0.0;
        drain_s_ = o_.drain_s > 0 ? o_.drain_s : default_drain_s(longest, first_age);
        grace_.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(drain_s_ * 1000)));
        grace_.async_wait([this](const boost::system::error_code& e) {
            if (!e) drain_over();
        });
    }

    void drain_over() {
        std::fprintf(stderr, "openloop: the %.3g s drain after the last send ran out; cancelling %zu requests "
                             "still in flight (cancelled_at_end)\n", drain_s_, client_.in_flight());
        // Ahead of their failures in the ring, so the reporter counts them as cancelled_at_end.
        client_.emit(event::drain_ended(to_ns(steady::now())));
        client_.close_all();
    }

    void maybe_finish() {
        if (scheduling_ || client_.in_flight() > 0 || finished_) return;
        finished_ = true;
        io_.stop();
    }

    void on_signal(const boost::system::error_code& ec) {
        if (ec) return;
        if (stopping_) {
            std::fprintf(stderr, "\nopenloop: aborting %zu in-flight requests\n", client_.in_flight());
            client_.close_all();
            return;
        }
        stopping_ = true;
        interrupted_ = true;
        timer_.cancel();
        if (sessions_) sessions_->stop();
        std::fprintf(stderr, "\nopenloop: stopping; up to %.0f s for %zu in-flight requests to finish "
                             "(Ctrl-C again aborts them)\n", o_.grace_s, client_.in_flight());
        if (!waiting_.empty())
            std::fprintf(stderr, "openloop: %zu requests waiting for a slot (--max-concurrency) are not sent: "
                                 "counted as cancelled\n", waiting_.size());
        grace_.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(o_.grace_s * 1000)));
        grace_.async_wait([this](const boost::system::error_code& e) {
            if (!e) client_.close_all();
        });
        signals_.async_wait([this](const boost::system::error_code& e, int) { on_signal(e); });
        maybe_finish();
    }

    static schedule_bounds bounds_of(const run_options& o) {
        return {o.warmup_requests, o.warmup_s, o.num_requests, o.duration_s, o.all_bounds};
    }

    const run_options& o_;
    const schedule_bounds bounds_ = bounds_of(o_);
    const client_options& co_;
    net::io_context& io_;
    client& client_;
    workload& workload_;
    const request_body body_;
    request_spec spec_;      // each request's prompt before its body is built: the memory is reused
    std::string body_text_;  // each request's body before it joins its headers: likewise
    // Ended requests' bytes, for the next ones built: a run in its stride allocates none.
    static constexpr std::size_t max_spare_bytes = 256;
    std::vector<std::string> spare_bytes_;
    // --max-concurrency: arrivals waiting for a request to end, oldest first; offset_ns holds
    // each one's intended send time.
    std::deque<queued_request> waiting_;
    bool schedule_ended_ = false;  // the schedule is over but requests still wait
    steady_timer timer_;
    steady_timer grace_;
    net::signal_set& signals_;
    std::string model_;
    steady::time_point origin_ = steady::now();
    std::uint64_t next_index_ = 0;  // closed loop: this shard's requests begun
    std::uint64_t offered_ = 0;
    std::int64_t first_offset_ = 0;
    std::int64_t last_offset_ = 0;
    std::uint64_t measured_ = 0;
    std::int64_t first_send_ns_ = 0;
    std::int64_t longest_ns_ = 0;
    std::optional<stage_end> stage_end_ = o_.stage_end ? std::optional<stage_end>(*o_.stage_end) : std::nullopt;
    double stage_window_s_ = 0;
    double drain_s_ = 0;  // the drain limit armed; 0: none (nothing was left in flight, or Ctrl-C)
    int workers_ = 0;
    bool scheduling_ = true;
    bool stopping_ = false;
    bool interrupted_ = false;
    bool overloaded_ = false;
    bool finished_ = false;
    fail_fast fail_fast_;
    std::string stop_reason_;
    std::optional<session_loop> sessions_;  // --turns: a multi-turn run
};


}  // namespace openloop
