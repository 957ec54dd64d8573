#pragma once
// The calls a run makes before its schedule starts, each run to completion
// on the io thread's context before that thread runs the load: the model id
// from GET /v1/models, and the calibration's tokenize calls. Setup may block
// and throw (with context); the load itself never does. Each call is bounded
// (setup_call_limit), says what it waits for once it took a second, and ends
// at the first SIGINT or SIGTERM: the run then sends nothing and ends as
// interrupted, with its (empty) results written.

#include "openloop/wire/client.hpp"

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <exception>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace openloop {

// A call before the schedule, connect included, waits at most this long, or
// --timeout when that is shorter: a server that leaves one unanswered holds
// the run's start no longer (docs: --timeout's help).
inline constexpr std::chrono::milliseconds setup_call_budget{10'000};
std::chrono::milliseconds setup_call_limit(std::chrono::milliseconds total_timeout);

// What a setup call throws once a signal stopped the setup.
struct setup_interrupted : std::runtime_error {
    using std::runtime_error::runtime_error;
};

class server_setup {
public:
    // signals: the run's SIGINT/SIGTERM set, which the load waits on after setup;
    // target: the server as the messages name it; interrupted: a signal ended a step
    // before (run_options::interrupted), so that nothing is asked.
    server_setup(boost::asio::io_context& io, boost::asio::signal_set& signals, std::string target,
                 std::chrono::milliseconds limit, bool interrupted = false);

    // Runs op to completion on io: what it returned, or what it threw. what names the call
    // ("GET /v1/models"), purpose why it is made and how to skip it. Past the limit it is
    // cancelled and throws "no answer within"; once one call went unanswered, later ones
    // throw the same at once rather than each waiting its limit (the server is not
    // answering). A signal cancels it and throws setup_interrupted.
    template <class T>
    T call(boost::asio::awaitable<T> op, const std::string& what, const std::string& purpose) {
        refuse_if_stopped();
        std::optional<T> result;
        std::exception_ptr error;
        boost::asio::co_spawn(io_, std::move(op),
                              boost::asio::bind_cancellation_slot(cancel_.slot(), [&](std::exception_ptr e, T value) {
                                  error = e;
                                  if (!e) result = std::move(value);
                                  settle();
                              }));
        wait(what + " on " + target_, purpose, limit_);
        if (error) std::rethrow_exception(error);
        return std::move(*result);
    }

    // A blocking step that cannot be cancelled but ends by its own bound (the server watch's
    // first sample: each --scrape URL's timeout) on a thread of its own, while io waits:
    // named after a second; a signal meanwhile ends the run once the step is over
    // (setup_interrupted), as during a call.
    void run_blocking(const std::function<void()>& step, const std::string& what, const std::string& purpose);

    // A signal arrived during a call (or before): nothing more is asked, and nothing is sent.
    bool interrupted() const { return interrupted_; }

private:
    void refuse_if_stopped() const;
    // what names the call and where it goes. Runs io until the call settles, with its note, its limit (none: the step bounds
    // itself) and the signal wait armed; throws when the limit or a signal ended it.
    void wait(const std::string& what, const std::string& purpose, std::optional<std::chrono::milliseconds> limit);
    void settle();

    boost::asio::io_context& io_;
    boost::asio::signal_set& signals_;
    std::string target_;
    std::chrono::milliseconds limit_;
    boost::asio::cancellation_signal cancel_;
    boost::asio::steady_timer note_, deadline_;
    bool interrupted_ = false;
    bool timed_out_ = false;
    std::string unanswered_;  // the call that went unanswered, and for how long
};

// The first model id of GET base/models; throws std::runtime_error saying
// to give --model when there is none.
std::string discover_model(server_setup& setup, client& cl, const std::string& base);

}  // namespace openloop
