#pragma once
// One connection and the coroutine that serves it, request after request:
// it connects (or is opened ahead as a spare), then waits parked in the pool,
// writes the request it is given, reads the response through the parser into
// the reader as its exchange_fsm says, and parks again. One coroutine frame,
// parser and reader per connection, none per request.

#include "client_context.hpp"

#include "openloop/wire/connection.hpp"
#include "openloop/wire/exchange_fsm.hpp"
#include "openloop/wire/response_reader.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>

#include <cstdint>
#include <list>
#include <memory>
#include <optional>
#include <vector>

namespace openloop {

class connection_pool;

class connection_worker {
public:
    // With a job, it connects for it; without, it is a spare, counted as
    // opening by the pool until connected.
    connection_worker(client_context& ctx, connection_pool& pool, std::optional<request_job> job);
    connection_worker(const connection_worker&) = delete;
    connection_worker& operator=(const connection_worker&) = delete;

    // The coroutine: connects, serves requests until the connection cannot
    // carry another, and leaves the pool; the request in hand always ends.
    boost::asio::awaitable<void> run();
    // Hands a parked worker its next request, written at once as far as the
    // socket takes it (plain TCP), and wakes it.
    void give(request_job job);
    // Closes the connection and ends the coroutine.
    void retire();

    // What the pool judges a parked connection by.
    std::int64_t idle_since_ns() const { return idle_since_ns_; }
    bool peer_gone() { return conn_->peer_gone(); }
    bool served() const { return conn_->served; }

private:
    friend class connection_pool;  // keeps self_

    void mark_sent(request_job& j);
    void end(const exchange_result& r);
    // Requests on one connection until it cannot carry another; true when
    // the request in hand is to go again on a fresh connection.
    template <class Stream>
    boost::asio::awaitable<bool> serve(Stream& stream);
    // The request in hand on stream, written and read as fsm_ says, up to its finish.
    template <class Stream>
    boost::asio::awaitable<void> exchange(Stream& stream, request_job& j);

    client_context& ctx_;
    connection_pool& pool_;
    std::unique_ptr<connection> conn_;
    steady_timer wake_;  // parked on between requests; cancelled to wake it
    std::optional<request_job> job_;
    // conn_ waited in the pool before this request: one that got nothing back
    // on it may have met the server's idle close, and goes again once.
    bool pooled_ = false;
    bool spare_;        // opened ahead, counted in the pool's opening until connected
    bool stop_ = false; // close the connection and end
    std::int64_t idle_since_ns_ = 0;
    response_reader reader_;
    exchange_fsm fsm_;
    request_clock clock_;
    bool timed_ = false;  // clock_ is registered with the sweep
    // A body with media as one gather write: its JSON pieces and the shared
    // payloads between them (memory kept from request to request).
    std::vector<boost::asio::const_buffer> gather_;
    std::list<connection_worker>::iterator self_;
};

}  // namespace openloop
