#pragma once
// Coroutines that must stop together — the requests of a run — each with a
// cancellation signal of its own, bound when it is spawned, so one call
// reaches every one of them at whatever stage it is in (connect, TLS
// handshake, write, read). A slot holds one handler at a time, hence one
// signal per coroutine.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

#include <exception>
#include <iterator>
#include <list>
#include <string>
#include <utility>

namespace openloop {

class cancel_group {
public:
    explicit cancel_group(boost::asio::io_context& io) : io_(io) {}
    cancel_group(const cancel_group&) = delete;
    cancel_group& operator=(const cancel_group&) = delete;

    // Starts op on the io context; on_end(std::exception_ptr) runs when it
    // ends, with the exception it let escape, if any.
    template <class OnEnd>
    void spawn(boost::asio::awaitable<void> op, OnEnd on_end) {
        if (spare_.empty()) {
            members_.emplace_back();
        } else {
            // A member that ended before: its signal's handler memory is reused.
            members_.splice(members_.end(), spare_, spare_.begin());
            members_.back().ended = false;
        }
        const auto it = std::prev(members_.end());
        boost::asio::co_spawn(io_, std::move(op),
                              boost::asio::bind_cancellation_slot(
                                  it->signal.slot(), [this, it, on_end = std::move(on_end)](std::exception_ptr e) mutable {
                                      release(it);
                                      on_end(e);
                                  }));
    }

    // Terminal cancellation for every coroutine still running.
    void cancel_all();

    // What an exception a coroutine let escape says, for a log line.
    static std::string describe(std::exception_ptr e);

private:
    struct member {
        boost::asio::cancellation_signal signal;
        bool ended = false;
    };
    using iterator = std::list<member>::iterator;
    void release(iterator it);

    boost::asio::io_context& io_;
    // A list, so a signal keeps its address while others come and go; ended
    // members wait in spare_ for the next spawn, so a run in its stride
    // allocates nothing here per request.
    std::list<member> members_, spare_;
    static constexpr std::size_t max_spare = 4096;
    bool cancelling_ = false;
};

}  // namespace openloop
