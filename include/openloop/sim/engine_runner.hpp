#pragma once
// Runs the simulated engine (engine.hpp) in real time on the server's
// io_context: plans one step, sleeps its modelled duration, then hands each
// request the tokens that step produced and wakes its connection. A
// slowdown (misbehaviour.hpp) stretches each step by the server's age.

#include "openloop/base/executor.hpp"
#include "openloop/sim/engine.hpp"
#include "openloop/sim/misbehaviour.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstdint>
#include <unordered_map>

namespace openloop {

// A request's mailbox while the engine works on it.
struct live_request {
    explicit live_request(const io_executor& ex) : wake(ex, std::chrono::steady_clock::time_point::max()) {}
    steady_timer wake;  // cancelled by the runner when tokens are ready
    int ready = 0;                   // tokens produced and not yet sent
    int cached_tokens = 0;
    bool finished = false;
};

class engine_runner {
public:
    engine_runner(boost::asio::io_context& io, const cost_model& model, const misbehaviour_config& misbehaviour);

    // Spawns the step loop; the firehose, which has no cost, never starts it.
    void start();
    // Queues r; lr hears of its tokens until remove(r.id, lr). lr must outlive that.
    void add(live_request& lr, seq_request r);
    // Stops delivering to the request, and aborts it in the engine when unfinished.
    void remove(std::uint64_t id, const live_request& lr);

    const engine& engine_state() const { return engine_; }

private:
    boost::asio::awaitable<void> step_loop();

    boost::asio::io_context& io_;
    engine engine_;
    misbehaviour_config misbehaviour_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now();
    steady_timer idle_;  // the step loop sleeps on it while the engine is idle
    std::unordered_map<std::uint64_t, live_request*> live_;
};

}  // namespace openloop
