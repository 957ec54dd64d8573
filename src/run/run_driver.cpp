#include "openloop/run/run_driver.hpp"

#include "openloop/measure/event.hpp"
#include "openloop/run/closed_loop.hpp"
#include "openloop/run/drain.hpp"
#include "openloop/run/open_loop.hpp"
#include "openloop/run/session_loop.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <utility>

namespace openloop {

namespace net = boost::asio;

run_driver::run_driver(const run_plan& plan, net::io_context& io, client& cl, net::signal_set& signals)
    : plan_(plan), o_(plan.options()), io_(io), client_(cl), requests_(plan), grace_(io), signals_(signals) {}

void run_driver::stop_before_start() {
    stopping_ = true;
    interrupted_ = true;
}

void run_driver::start(const start_clock& clock) {
    const auto origin = steady::time_point(std::chrono::nanoseconds(clock.origin_steady_ns));
    client_.on_end([this](finished_request& f) { request_ended(f); });
    signals_.async_wait([this](const boost::system::error_code& ec, int) { on_signal(ec); });
    if (stopping_) {
        scheduling_ = false;
        net::post(io_, [this] { maybe_finish(); });
        return;
    }
    scheduler_ = make_scheduler();
    scheduler_->start(origin);
    if (stage_end_) {
        net::co_spawn(io_, watch_stage(), [](std::exception_ptr e) {
            if (e) report_escape("the stage's queue watch", e);
        });
    }
    if (o_.overload_inflight > 0) {
        net::co_spawn(io_, watch_overload(), [](std::exception_ptr e) {
            if (e) report_escape("the overload watch", e);
        });
    }
}

// The one place a mode is chosen: sessions (--turns, a trace's conversations), the closed
// loop (--concurrency) or the open loop.
std::unique_ptr<scheduler> run_driver::make_scheduler() {
    scheduler_host& host = *this;
    if (plan_.sessions()) return std::make_unique<session_loop>(plan_, io_, client_, requests_, host);
    if (o_.concurrency > 0) return std::make_unique<closed_loop>(plan_, io_, client_, requests_, host);
    return std::make_unique<open_loop>(plan_, io_, client_, requests_, host);
}

void run_driver::stop(stop_cause cause) {
    stopping_ = true;
    if (scheduler_) scheduler_->stop();
    switch (cause) {
    case stop_cause::signal:
        interrupted_ = true;
        std::fprintf(stderr, "\nopenloop: stopping; up to %.0f s for %zu in-flight requests to finish "
                             "(Ctrl-C again aborts them)\n", o_.grace_s, client_.in_flight());
        if (scheduler_ && scheduler_->waiting() > 0)
            std::fprintf(stderr, "openloop: %zu requests waiting for a slot (--max-concurrency) are not sent: "
                                 "counted as cancelled\n", scheduler_->waiting());
        grace_.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(o_.grace_s * 1000)));
        grace_.async_wait([this](const boost::system::error_code& e) {
            if (!e) client_.close_all();
        });
        maybe_finish();
        return;
    case stop_cause::overload:
        // A server that cannot keep up makes in-flight grow without bound; past
        // the limit nothing more is learned by waiting.
        overloaded_ = true;
        client_.close_all();
        maybe_finish();
        return;
    case stop_cause::fail_fast:
        // Every request so far was refused the same way: say the server's reason, cancel what
        // is in flight and write what there is.
        stop_reason_ = fail_fast_reason(fail_fast_.failure(), fail_fast_.status(), client_.messages());
        std::fprintf(stderr, "openloop: %s\n", stop_reason_.c_str());
        // Posted: this runs inside a request's coroutine, which close_all would cancel.
        net::post(io_, [this] {
            client_.close_all();
            maybe_finish();
        });
        return;
    }
}

void run_driver::on_signal(const boost::system::error_code& ec) {
    if (ec) return;
    if (stopping_) {
        std::fprintf(stderr, "\nopenloop: aborting %zu in-flight requests\n", client_.in_flight());
        client_.close_all();
        return;
    }
    signals_.async_wait([this](const boost::system::error_code& e, int) { on_signal(e); });
    stop(stop_cause::signal);
}

net::awaitable<void> run_driver::watch_overload() {
    steady_timer tick(io_);
    while (!finished_ && !stopping_) {
        tick.expires_after(std::chrono::milliseconds(250));
        co_await tick.async_wait();
        if (client_.in_flight() > o_.overload_inflight) stop(stop_cause::overload);
    }
}

// The in-flight count on the stage rule's step, from the first measured send.
net::awaitable<void> run_driver::watch_stage() {
    steady_timer tick(io_);
    const auto step = std::chrono::nanoseconds(static_cast<std::int64_t>(o_.stage_end->step_s * 1e9));
    auto at = steady::now() + step;
    while (scheduling_ && !stopping_) {
        tick.expires_at(at);
        co_await tick.async_wait();
        if (scheduler_->offered().measured > 0) stage_end_->sample(client_.in_flight());
        at += step;
    }
}

void run_driver::sent() {
    if (first_send_ns_ == 0) first_send_ns_ = to_ns(steady::now());
}

void run_driver::ended(std::int64_t from_ns, request_end end) {
    longest_ns_ = std::max(longest_ns_, to_ns(steady::now()) - from_ns);
    if (!stopping_ && fail_fast_.observe(end.failure, end.status)) stop(stop_cause::fail_fast);
}

// A request sent with client::send (the open loop's) ended.
void run_driver::request_ended(finished_request& f) {
    ended(f.intended_ns, f.end);
    if (stage_end_ && (f.flags & flag_warmup) == 0 && f.end.failure == error_class::none) {
        stage_end_->completed(static_cast<double>(to_ns(steady::now()) - f.intended_ns) / 1e9);
    }
    scheduler_->request_ended(f);
    maybe_finish();
}

// A sweep stage's end rule says its window is over (the run's own bounds are the walk's).
bool run_driver::stage_done(std::int64_t window_ns, std::uint64_t measured) {
    if (!stage_end_ || measured == 0) return false;
    stage_window_s_ = static_cast<double>(window_ns) / 1e9;
    return stage_end_->done(stage_window_s_, measured);
}

// The last session arrived: those going on end by themselves, unless --drain gives them a limit.
void run_driver::arrivals_over() {
    if (o_.drain_s <= 0 || stopping_) return;
    drain_s_ = o_.drain_s;
    grace_.expires_after(std::chrono::milliseconds(static_cast<std::int64_t>(drain_s_ * 1000)));
    grace_.async_wait([this](const boost::system::error_code& e) {
        if (e || finished_) return;
        std::fprintf(stderr, "openloop: the %.3g s drain after the last session arrived ran out; its sessions "
                             "still going are cut\n", drain_s_);
        scheduler_->stop();
        drain_over();
    });
}

void run_driver::schedule_done() {
    scheduling_ = false;
    if (!stopping_ && client_.in_flight() > 0) arm_drain();
    maybe_finish();
}

// A server that never answers, or streams forever, would hold the run
// open: the requests left after the drain limit are cancelled.
void run_driver::arm_drain() {
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

void run_driver::drain_over() {
    std::fprintf(stderr, "openloop: the %.3g s drain after the last send ran out; cancelling %zu requests "
                         "still in flight (cancelled_at_end)\n", drain_s_, client_.in_flight());
    // Ahead of their failures in the ring, so the reporter counts them as cancelled_at_end.
    client_.emit(event::drain_ended(to_ns(steady::now())));
    client_.close_all();
}

void run_driver::maybe_finish() {
    if (scheduling_ || client_.in_flight() > 0 || finished_) return;
    finished_ = true;
    io_.stop();
}

}  // namespace openloop
