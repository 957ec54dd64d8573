#pragma once
// client's insides, shared by client.cpp (sending, the pool of idle
// connections) and connection_worker.cpp (the coroutine each connection runs).

#include "openloop/wire/chunk.hpp"
#include "openloop/wire/client.hpp"
#include "openloop/wire/connection.hpp"
#include "openloop/wire/connector.hpp"
#include "openloop/wire/deadline_sweep.hpp"
#include "openloop/wire/exchange.hpp"
#include "openloop/wire/exchange_fsm.hpp"
#include "openloop/wire/response_reader.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

// A closed-loop caller of client::run(), waiting for its request to end.
struct run_waiter {
    explicit run_waiter(boost::asio::io_context& io) : timer(io) {}
    steady_timer timer;
    request_end result;
    bool done = false;
};

// A request given to send(), until it ends.
struct request_job {
    std::uint64_t index = 0;
    prepared_request request;
    std::int64_t intended_ns = 0;
    std::int64_t flags = 0;
    std::int64_t released_ns = -1;  // >= 0: when it left the client-side queue (--max-concurrency)
    bool sent = false;     // its sent event went out: a retry is not a second send
    bool retried = false;  // it went again once on a fresh connection
    std::size_t written = 0;  // bytes already written by send() on the connection it was given
    deadlines dl;
    run_waiter* waiter = nullptr;  // set by run(): woken instead of on_end
};

// One connection and the coroutine that serves it, request after request.
struct worker {
    worker(boost::asio::io_context& io, chunk_decoder& decoder) : wake(io), reader(decoder) {}
    std::unique_ptr<connection> conn;
    steady_timer wake;  // parked on between requests; cancelled to wake it
    std::optional<request_job> job;
    // conn waited in the pool before this request: one that got nothing back
    // on it may have met the server's idle close, and goes again once.
    bool pooled = false;
    bool spare = false;  // opened ahead, counted in impl::opening until connected
    bool stop = false;   // close the connection and end
    std::int64_t idle_since_ns = 0;
    response_reader reader;
    exchange_fsm fsm;
    request_clock clock;
    bool timed = false;  // clock is registered with the sweep
    std::list<worker>::iterator self;
};

struct client::impl {
    impl(client& owner, boost::asio::io_context& io, client_options o);

    client& owner;
    boost::asio::io_context& io;
    client_options opt;
    connector connect;
    chunk_decoder decoder;  // decode() keeps no state between calls: one serves every request
    error_messages messages;  // the io thread's only: read after the io loop has stopped
    deadline_sweep sweep;
    // Plain TCP reads of every request land here first (exchange.hpp).
    std::unique_ptr<char[]> read_buffer;
    std::list<worker> workers;  // a list: a worker keeps its address while others come and go
    std::vector<worker*> idle;  // parked, most recently used at the back
    std::size_t opening = 0;      // spares connecting
    std::size_t wanted_soon = 0;  // requests due soon that will want a connection
    std::size_t in_flight = 0;
    bool closing = false;
    // Some servers close every connection right after a streamed answer,
    // whatever their Keep-Alive header says (llama.cpp's llama-server does).
    // Seen a few times and never contradicted by a successful reuse, such
    // connections stop going back into the pool, so no request races a FIN.
    bool reuse = true;
    int closed_after_answer = 0;
    int reused_ok = 0;
    steady_timer refresh;
    std::function<void(finished_request&)> on_end;

    // client.cpp
    void send(request_job job);
    void note(error_class cls, int status, std::string message);
    void end(worker& w, const exchange_result& r);
    worker* take_idle();
    void park(worker& w);
    void retire(worker& w);
    void forget(worker& w);
    void keep_spares();
    void schedule_refresh();
    bool stale(const worker& w, std::int64_t now) const;
    void start(worker& w);
    // connection_worker.cpp
    void mark_sent(request_job& j);
    void write_now(worker& w, request_job& j);
    boost::asio::awaitable<void> work(worker& w);
    template <class Stream>
    boost::asio::awaitable<bool> serve(Stream& stream, worker& w);
};

}  // namespace openloop
