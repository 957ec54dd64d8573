#include "openloop/sim/engine_runner.hpp"

#include <boost/asio/co_spawn.hpp>

#include <cmath>
#include <exception>

namespace openloop {

namespace net = boost::asio;
using sim_clock = std::chrono::steady_clock;

engine_runner::engine_runner(net::io_context& io, const cost_model& model, const misbehaviour_config& misbehaviour)
    : io_(io), engine_(model), misbehaviour_(misbehaviour), idle_(io) {}

void engine_runner::start() {
    net::co_spawn(io_, step_loop(), [](std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
    });
}

void engine_runner::add(live_request& lr, seq_request r) {
    live_.emplace(r.id, &lr);
    engine_.add(std::move(r));
    idle_.cancel();
}

void engine_runner::remove(std::uint64_t id, const live_request& lr) {
    live_.erase(id);
    if (!lr.finished) engine_.abort(id);
}

net::awaitable<void> engine_runner::step_loop() {
    steady_timer step_timer(io_);
    for (;;) {
        if (engine_.idle()) {
            idle_.expires_at(sim_clock::time_point::max());
            co_await idle_.async_wait();
            continue;
        }
        const auto start = sim_clock::now();
        auto result = engine_.step();
        const double age_s = std::chrono::duration<double>(start - started_).count();
        const double factor = step_time_factor(misbehaviour_, age_s);
        step_timer.expires_at(start + std::chrono::nanoseconds(std::llround(static_cast<double>(result.duration_ns) * factor)));
        co_await step_timer.async_wait();
        for (const auto& e : result.out) {
            auto it = live_.find(e.id);
            if (it == live_.end()) continue;
            it->second->ready += e.tokens;
            if (e.cached_tokens > 0) it->second->cached_tokens = e.cached_tokens;
            if (e.finished) it->second->finished = true;
            it->second->wake.cancel();
        }
    }
}

}  // namespace openloop
