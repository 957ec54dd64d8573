#include "openloop/run/session_loop.hpp"

#include "openloop/load/shard.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/run/runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <utility>

namespace openloop {

namespace {

steady::time_point at(std::int64_t ns) { return steady::time_point(std::chrono::nanoseconds(ns)); }

}  // namespace

session_loop::session_loop(const run_options& o, boost::asio::io_context& io, client& cl, workload& w,
                           request_builder& requests, scheduler_host& host)
    : o_(o), bounds_(bounds_of(o)), plan_(*o.sessions), io_(io), client_(cl), workload_(w), requests_(requests),
      host_(host), timer_(io) {}

void session_loop::start(steady::time_point origin) {
    origin_ = origin;
    boost::asio::co_spawn(io_, arrivals(), [this](std::exception_ptr e) {
        if (e) std::fprintf(stderr, "openloop: the session schedule failed: %s\n", cancel_group::describe(e).c_str());
        arrivals_done_ = true;
        if (live_ > 0) host_.arrivals_over();
        maybe_done();
    });
}

void session_loop::stop() {
    stopping_ = true;
    timer_.cancel();
    for (slot& s : slots_) s.timer.cancel();
}

boost::asio::awaitable<void> session_loop::arrivals() {
    arrival_process schedule(o_.arrival);
    shard_walk walk(o_.shard, bounds_);
    while (!stopping_) {
        const auto arrival = walk.next([&](std::uint64_t g) -> std::optional<std::int64_t> {
            if (plan_.traced_count() == 0) return schedule.next_ns();
            if (!o_.workload.trace_loop && g >= plan_.traced_count()) return std::nullopt;
            return row_ns(g, 0);
        });
        if (!arrival) break;
        timer_.expires_at(origin_ + std::chrono::nanoseconds(arrival->offset_ns));
        co_await timer_.async_wait();
        if (stopping_) break;
        slot& s = take_slot();
        ++live_;
        client_.spawn(session(s, arrival->index, origin_ns() + arrival->offset_ns, arrival->warmup),
                      [this, &s](std::exception_ptr e) {
                          if (e) std::fprintf(stderr, "openloop: a session failed: %s\n",
                                              cancel_group::describe(e).c_str());
                          free_.push_back(&s);
                          --live_;
                          maybe_done();
                      });
    }
}

// One session, turn after turn; it ends at its last turn, a failed one, or when the run stops.
// A session that started inside the window runs to its end past it: cut there, the long
// sessions would be the ones missing from the session latency.
boost::asio::awaitable<void> session_loop::session(slot& s, std::uint64_t id, std::int64_t first_intended, bool warm) {
    const int turns = plan_.turns(id);
    const std::int64_t flags = warm ? std::int64_t{flag_warmup} : 0;
    std::uint8_t how = warm ? session_warmup : 0;
    std::int64_t intended = first_intended, end = first_intended, history_tokens = 0;
    int completed = 0;
    s.history.clear();
    const recorded_conversation* recorded = plan_.recorded(id);
    const trace_session* traced = plan_.traced(id);
    if (recorded && !recorded->system.empty()) {
        s.history.add("system") = recorded->system;
        history_tokens = count_text_tokens(recorded->system);
    }
    for (int k = 0; k < turns; ++k) {
        if (k > 0) {
            // From the answer's end, not from when this coroutine resumed: a late resume is lag.
            intended = traced ? std::max(end, origin_ns() + row_ns(id, k)) : end + plan_.think_ns(id, k);
            s.timer.expires_at(at(intended));
            co_await s.timer.async_wait();
        }
        if (stopping_) {
            how |= session_cut;
            break;
        }
        const std::uint64_t index = plan_.request_index(id, k);
        if (traced) {
            workload_.trace_turn(traced->turns[static_cast<std::size_t>(k)], history_tokens, index, spec_);
        } else if (recorded) {
            const recorded_turn& t = recorded->turns[static_cast<std::size_t>(k)];
            spec_.prompt = t.user;
            spec_.input_tokens = t.input_tokens;
            spec_.max_tokens = t.answer_tokens;
        } else {
            workload_.at(index, spec_);
        }
        spec_.history = &s.history;
        prepared_request p = requests_.build(spec_, index);
        spec_.history = nullptr;
        const std::int64_t asked = spec_.max_tokens;
        // What the server is asked to read: the conversation so far (its answers at the
        // length asked) and the new message.
        p.input_tokens = static_cast<int>(history_tokens + spec_.input_tokens);
        history_tokens += spec_.input_tokens + asked;
        p.answer = &s.answer;
        s.history.add("user") = spec_.prompt;
        if (client_.in_flight() >= o_.max_inflight) {
            client_.emit(event::refusal(index, intended, p.input_tokens, p.max_tokens, flags));
            how |= session_failed;
            break;
        }
        host_.sent();
        const request_end r = co_await client_.run(index, std::move(p), intended, flags);
        host_.ended(intended, r);
        end = r.end_ns;
        if (r.failure != error_class::none) {
            how |= r.failure == error_class::cancelled || r.failure == error_class::cancelled_at_end ? session_cut
                                                                                                     : session_failed;
            break;
        }
        ++completed;
        std::swap(s.history.add("assistant"), s.answer);
    }
    client_.emit(event::session_ended(plan_.request_index(id, 0), end, first_intended, completed, turns, how));
}

// When trace session id's row turn is due; --loop's later laps (id past the trace's
// sessions) are a trace period apart, as the rows of a looped trace are.
std::int64_t session_loop::row_ns(std::uint64_t id, int turn) const {
    const std::uint64_t lap = id / plan_.traced_count();
    const std::size_t entry = plan_.traced(id)->turns[static_cast<std::size_t>(turn)];
    return workload_.trace_at_ns(lap * workload_.trace_entries().size() + entry);
}

session_loop::slot& session_loop::take_slot() {
    if (free_.empty()) return slots_.emplace_back(io_);
    slot& s = *free_.back();
    free_.pop_back();
    return s;
}

void session_loop::maybe_done() {
    if (arrivals_done_ && live_ == 0 && !reported_) {
        reported_ = true;
        host_.schedule_done();
    }
}

}  // namespace openloop
