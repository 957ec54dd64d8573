#include "openloop/run/session_loop.hpp"

#include "openloop/base/random.hpp"
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

// A tool step's latency, result length and output length, from the seed and its request index.
constexpr std::uint64_t tool_salt = 0x510e527fade682d1ULL;

}  // namespace

session_loop::session_loop(const run_plan& plan, boost::asio::io_context& io, client& cl, request_builder& requests,
                           scheduler_host& host)
    : o_(plan.options()), bounds_(bounds_of(o_)), plan_(*plan.sessions()),
      tools_prompt_tokens_(plan.prepared().tools_prompt_tokens), io_(io), client_(cl), workload_(plan.load()),
      requests_(requests), host_(host), timer_(io) {}

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
    chain c{id};
    c.model = requests_.model_of(plan_.request_index(id, 0));
    c.flags = warm ? std::int64_t{flag_warmup} : 0;
    c.how = warm ? session_warmup : 0;
    c.end = first_intended;
    std::int64_t intended = first_intended;
    int completed = 0;
    s.history.clear();
    const recorded_conversation* recorded = plan_.recorded(id);
    const trace_session* traced = plan_.traced(id);
    if (recorded) {
        // --system-prompt, sent first in every body, takes a recorded system message's place.
        const bool own = o_.system_prompt.empty() && !recorded->system.empty();
        if (own) s.history.add("system") = recorded->system;
        c.history_tokens = count_text_tokens(own ? recorded->system : o_.system_prompt);
    }
    // A built message counts the system prompt in its first word; the conversation holds it once.
    const int repeated = workload_.builder().system_tokens();
    for (int k = 0; k < turns; ++k) {
        if (k > 0) {
            // From the answer's end, not from when this coroutine resumed: a late resume is lag.
            intended = traced ? std::max(c.end, origin_ns() + row_ns(id, k)) : c.end + plan_.think_ns(id, k);
            s.timer.expires_at(at(intended));
            co_await s.timer.async_wait();
        }
        if (stopping_) {
            c.how |= session_cut;
            break;
        }
        const std::uint64_t index = plan_.request_index(id, c.sent);
        const int held = recorded || c.sent == 0 ? 0 : repeated;
        if (traced) {
            workload_.trace_turn(traced->turns[static_cast<std::size_t>(k)], c.history_tokens - held, index, spec_);
        } else if (recorded) {
            const recorded_turn& t = recorded->turns[static_cast<std::size_t>(k)];
            spec_.prompt = t.user;
            spec_.input_tokens = t.input_tokens;
            spec_.max_tokens = t.answer_tokens;
        } else {
            workload_.at(index, spec_);
        }
        prepared_request p = prepare(s, c, held);
        s.history.add("user") = spec_.prompt;
        if (!co_await send(std::move(p), index, intended, c)) break;
        if (keep_answer(s, c) && !co_await tool_steps(s, c)) break;
        ++completed;
    }
    client_.emit(event::session_ended(plan_.request_index(id, 0), c.end, first_intended, completed, turns, c.how));
}

// After a tool-call answer: the tool runs (--tool-latency), and its result goes back as the
// next request, no new user message, until an answer is text or the turn has taken
// --max-tool-steps; false when the session ends here.
boost::asio::awaitable<bool> session_loop::tool_steps(slot& s, chain& c) {
    for (int step = 0;; ++step) {
        const std::uint64_t index = plan_.request_index(c.id, c.sent);
        request_rng rng(mix64(o_.workload.seed ^ tool_salt) ^ index);
        // Every call gets its result, as a real agent answers each (OpenAI refuses a call left
        // without one), and the results stay in the history even past the last step.
        const std::size_t asked = s.history.size() - 1;  // the answer that called them
        int result_tokens = 0;
        for (std::size_t i = 0; i < s.history[asked].calls.size(); ++i) {
            chat_message& result = s.history.add_message("tool");
            result.call_id = s.history[asked].calls[i].id;
            const int tokens = o_.tools.result_len.sample(rng);
            tool_result_text(result.text, tokens, i == 0 ? index : mix64(index + i));
            result_tokens += tokens;
        }
        if (step == o_.tools.max_steps) {
            c.history_tokens += result_tokens;
            ++capped_;
            co_return true;
        }
        const std::int64_t intended = c.end + o_.tools.latency.sample_ns(rng);
        s.timer.expires_at(at(intended));
        co_await s.timer.async_wait();
        if (stopping_) {
            c.how |= session_cut;
            co_return false;
        }
        // spec_ is every session's: filled after the wait, used before the next.
        spec_.input_tokens = result_tokens;
        spec_.max_tokens = o_.workload.output_len.sample(rng);
        spec_.tool_result = true;
        prepared_request p = prepare(s, c);
        spec_.tool_result = false;
        if (!co_await send(std::move(p), index, intended, c)) co_return false;
        if (!keep_answer(s, c)) co_return true;
    }
}

// The session's next request from spec_ and its history, and what it asks the server to
// read: the tools, the conversation so far (each answer at its length, or at the length
// asked where the usage did not say) and the new message.
prepared_request session_loop::prepare(slot& s, chain& c, int repeated) {
    spec_.history = &s.history;
    spec_.model = c.model;
    prepared_request p = requests_.build(spec_, plan_.request_index(c.id, c.sent++), static_cast<std::int64_t>(c.id));
    spec_.history = nullptr;
    const int added = spec_.input_tokens - repeated;
    p.input_tokens = static_cast<int>(c.history_tokens + added) + tools_prompt_tokens_;
    c.history_tokens += added + spec_.max_tokens;
    c.asked = spec_.max_tokens;
    p.answer = &s.answer;
    return p;
}

// false when the session ends with it: refused, failed or cut.
boost::asio::awaitable<bool> session_loop::send(prepared_request p, std::uint64_t index, std::int64_t intended, chain& c) {
    if (client_.in_flight() >= o_.max_inflight) {
        client_.emit(event::refusal(index, intended, p.input_tokens, p.max_tokens, c.flags, p.model));
        c.how |= session_failed;
        co_return false;
    }
    host_.sent();
    finished_request f = co_await client_.run(index, std::move(p), intended, c.flags);
    requests_.recycle(f.request);
    const request_end& r = f.end;
    host_.ended(intended, r);
    c.end = r.end_ns;
    // What goes back is the answer as it came: a thinking model's thinking is not sent, and an
    // answer that stopped early is shorter than asked.
    if (r.failure == error_class::none && r.answer_tokens >= 0) c.history_tokens += r.answer_tokens - c.asked;
    if (r.failure == error_class::none) co_return true;
    c.how |= r.failure == error_class::cancelled || r.failure == error_class::cancelled_at_end ? session_cut : session_failed;
    co_return false;
}

// The answer joins the history as it streamed; true when it called a tool (with --tools:
// without, the run sent none, and a call is taken as the text that came with it).
bool session_loop::keep_answer(slot& s, chain& c) {
    chat_message& m = s.history.add_message("assistant");
    std::swap(m.text, s.answer.text);
    if (!o_.tools.enabled() || !s.answer.tool_call || s.answer.calls.empty()) return false;
    // The usage counted the calls' arguments; sent back, each call names its function too.
    for (std::size_t i = 0; i < s.answer.calls.size(); ++i) c.history_tokens += count_text_tokens(s.answer.calls[i].name);
    m.calls.swap(s.answer.calls);
    return true;
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
        if (capped_ > 0)
            std::fprintf(stderr,
                         "openloop: %llu user turns were still calling tools after --max-tool-steps %d; their "
                         "sessions went on to the next turn\n",
                         static_cast<unsigned long long>(capped_), o_.tools.max_steps);
        host_.schedule_done();
    }
}

}  // namespace openloop
