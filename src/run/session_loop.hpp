#pragma once
// The io thread's side of a multi-turn run, for load_run.hpp: sessions arrive
// on the arrival schedule (open loop), and inside each, turn k + 1 is due its
// think time after turn k's answer ended (closed loop), carrying the whole
// conversation so far with the assistant's actual answers. Each turn's clock
// starts at that intended time, so a generator that sends it late shows lag.
// A trace's sessions (trace_sessions.hpp) arrive at their first rows' times,
// and a later turn is due at its row's time or its answer's end, the later.

#include "openloop/base/clock.hpp"
#include "openloop/base/executor.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/shard.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/run/runner.hpp"
#include "openloop/wire/client.hpp"

#include <boost/asio.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <list>
#include <optional>
#include <vector>

namespace openloop {

class session_loop {
public:
    // What the run lends a session: building a turn's bytes, and being told of its sends and ends.
    struct hooks {
        std::function<prepared_request(const request_spec&, std::uint64_t)> prepare;
        std::function<void()> sent;
        std::function<void(std::int64_t intended_ns, request_end)> ended;
        std::function<void()> arrivals_over;  // the last session arrived; those started go on to their ends
        std::function<void()> done;           // ... and the last session ended
    };

    session_loop(const run_options& o, schedule_bounds bounds, boost::asio::io_context& io, client& cl, workload& w,
                 hooks h)
        : o_(o), bounds_(bounds), plan_(o.sessions), io_(io), client_(cl), workload_(w), hooks_(std::move(h)),
          timer_(io) {}

    void start(steady::time_point origin) {
        origin_ = origin;
        boost::asio::co_spawn(io_, arrivals(), [this](std::exception_ptr e) {
            if (e) std::fprintf(stderr, "openloop: the session schedule failed: %s\n", cancel_group::describe(e).c_str());
            arrivals_done_ = true;
            if (live_ > 0) hooks_.arrivals_over();
            maybe_done();
        });
    }

    // Ctrl-C, an overload, failing fast, --drain after the last arrival: no
    // turn is sent any more, and a session thinking now ends now (cut); turns
    // in flight end as the run lets them.
    void stop() {
        stopping_ = true;
        timer_.cancel();
        for (slot& s : slots_) s.timer.cancel();
    }

private:
    // A session's memory, reused by the next session once it ends.
    struct slot {
        explicit slot(boost::asio::io_context& io) : timer(io) {}
        conversation history;
        std::string answer;
        steady_timer timer;
    };

    static steady::time_point at(std::int64_t ns) { return steady::time_point(std::chrono::nanoseconds(ns)); }
    std::int64_t origin_ns() const {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(origin_.time_since_epoch()).count();
    }

    boost::asio::awaitable<void> arrivals() {
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
    boost::asio::awaitable<void> session(slot& s, std::uint64_t id, std::int64_t first_intended, bool warm) {
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
            prepared_request p = hooks_.prepare(spec_, index);
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
            hooks_.sent();
            const request_end r = co_await client_.run(index, std::move(p), intended, flags);
            hooks_.ended(intended, r);
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
    std::int64_t row_ns(std::uint64_t id, int turn) const {
        const std::uint64_t lap = id / plan_.traced_count();
        const std::size_t entry = plan_.traced(id)->turns[static_cast<std::size_t>(turn)];
        return workload_.trace_at_ns(lap * workload_.trace_entries().size() + entry);
    }

    slot& take_slot() {
        if (free_.empty()) return slots_.emplace_back(io_);
        slot& s = *free_.back();
        free_.pop_back();
        return s;
    }

    void maybe_done() {
        if (arrivals_done_ && live_ == 0 && !reported_) {
            reported_ = true;
            hooks_.done();
        }
    }

    const run_options& o_;
    const schedule_bounds bounds_;
    const session_plan plan_;
    boost::asio::io_context& io_;
    client& client_;
    workload& workload_;
    hooks hooks_;
    steady_timer timer_;
    steady::time_point origin_;
    request_spec spec_;
    std::list<slot> slots_;  // a list: sessions hold references to their slots
    std::vector<slot*> free_;
    std::size_t live_ = 0;
    bool arrivals_done_ = false;
    bool stopping_ = false;
    bool reported_ = false;
};

}  // namespace openloop
