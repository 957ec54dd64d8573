#pragma once
// What a client's connection pool and its connections' workers share: the
// options, the connector, the deadline sweep, the buffer plain TCP reads land
// in, the first messages of each failure, and the end of every request (its
// failed event, its message, its hand-back to on_end or to run()'s caller).

#include "openloop/measure/error_messages.hpp"
#include "openloop/wire/chunk.hpp"
#include "openloop/wire/client.hpp"
#include "openloop/wire/connector.hpp"
#include "openloop/wire/deadline_sweep.hpp"
#include "openloop/wire/exchange.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace openloop {

// A closed-loop caller of client::run(), waiting for its request to end.
struct run_waiter {
    explicit run_waiter(boost::asio::io_context& io) : timer(io) {}
    steady_timer timer;
    finished_request result;
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

struct client_context {
    client_context(client& owner, boost::asio::io_context& io, client_options o);

    void emit(const event& e) noexcept { owner.emit(e); }
    // Ends the request in job (and empties it) as r says: its failed event
    // and message, its count in flight, and its hand-back.
    void end(std::optional<request_job>& job, const exchange_result& r);
    // A failure's message into messages, with header values (the API key) redacted.
    void note(error_class cls, int status, std::string message);

    client& owner;
    boost::asio::io_context& io;
    client_options opt;
    connector connect;
    chunk_decoder decoder;  // decode() keeps no state between calls: one serves every request
    error_messages messages;  // the io thread's only: read after the io loop has stopped
    deadline_sweep sweep;
    // Plain TCP reads of every request land here first (exchange.hpp).
    std::unique_ptr<char[]> read_buffer;
    std::function<void(finished_request&)> on_end;
    std::size_t in_flight = 0;
    bool closing = false;  // close_all() ran: whatever is in hand ends cancelled
};

}  // namespace openloop
