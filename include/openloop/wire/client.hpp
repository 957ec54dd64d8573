#pragma once
// The client side of a run: requests to one target over pooled HTTP/1.1
// keep-alive connections (TCP or TLS). Each connection has one coroutine, its
// worker, that waits in the pool for a request, writes it, streams the SSE
// response, pushes events into the ring, and waits again: a request costs no
// coroutine frame, parser or buffer of its own. Runs on the io thread only:
// nothing here blocks, and nothing per token allocates or formats text.

#include "openloop/measure/error_messages.hpp"
#include "openloop/measure/event.hpp"
#include "openloop/measure/ring.hpp"
#include "openloop/wire/cancel_group.hpp"
#include "openloop/wire/client_options.hpp"
#include "openloop/wire/request_writer.hpp"
#include "openloop/wire/target.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace openloop {

// How one request ended: none, or the class it failed in and its HTTP status (0: none);
// and when (steady ns): a completed one at the read that completed its answer (its done
// event's time), a failed one in the same turn of the io thread as the read that ended it.
struct request_end {
    error_class failure = error_class::none;
    int status = 0;
    std::int64_t end_ns = 0;
    // Completed: what the answer that a session sends back cost, thinking left out
    // (the usage's completion tokens less its reasoning tokens); -1 when not known.
    std::int64_t answer_tokens = -1;
};

// A request that ended, handed back: what send() was given, and how it ended.
struct finished_request {
    std::uint64_t index = 0;
    std::int64_t intended_ns = 0;
    std::int64_t flags = 0;
    request_end end;
    prepared_request request;  // its bytes' memory, for the next request to reuse
};

class client {
public:
    client(boost::asio::io_context& io, client_options options, spsc_ring<event>& ring);
    ~client();
    client(const client&) = delete;
    client& operator=(const client&) = delete;

    // Resolves the host and prepares TLS. Setup, before the run: it may block
    // and throws std::runtime_error with context on failure.
    void setup();

    // Opens n connections into the idle pool (errors are left for requests to
    // meet) and from then on keeps the pool fresh: stale spares are replaced
    // every keep_alive_idle / 4 until close_all().
    boost::asio::awaitable<void> open_spare(std::size_t n);
    // n requests are due soon: their connections are opened ahead, so that
    // a group sharing one send time connects nothing on its send path.
    void want_connections(std::size_t n);

    // Sends one request now, on an idle connection or a new one; every
    // outcome ends in a done or failed event, and then in on_end's call with
    // the request handed back. A failure's message goes into messages().
    // released_ns >= 0: it waited client-side (--max-concurrency) until then.
    void send(std::uint64_t index, prepared_request req, std::int64_t intended_ns, std::int64_t flags,
              std::int64_t released_ns = -1);
    // What runs as each request sent with send() ends (on the io thread).
    void on_end(std::function<void(finished_request&)> handler);
    // One request, start to end, for a closed-loop worker or a session that
    // waits for it: handed back as on_end gets it, its memory for the next.
    boost::asio::awaitable<finished_request> run(std::uint64_t index, prepared_request req, std::int64_t intended_ns,
                                                 std::int64_t flags);

    // Starts op, a coroutine that runs requests, so that close_all() cancels
    // it at whatever stage its request is in; on_end(std::exception_ptr) runs
    // when it ends.
    template <class OnEnd>
    void spawn(boost::asio::awaitable<void> op, OnEnd on_end) {
        requests_.spawn(std::move(op), std::move(on_end));
    }

    // A plain GET for setup (model discovery): the body of a 200 answer, or an exception.
    boost::asio::awaitable<std::string> get(std::string path);
    // A JSON POST for setup (tokenizer calibration): the status and body of
    // any answer, or an exception when there was none.
    boost::asio::awaitable<std::pair<int, std::string>> post(std::string path, std::string json_body);

    void emit(const event& e) noexcept;  // into the ring; counts a loss when it is full
    // Cancels every request in flight and every spawned coroutine (grace
    // period over, overload, a second Ctrl-C), closes the idle connections
    // and stops the refresh.
    void close_all();
    std::uint64_t lost_events() const noexcept { return lost_.load(std::memory_order_relaxed); }
    std::size_t in_flight() const noexcept;
    // The first messages of each kind of failure. Only the io thread writes
    // them: read them once its loop has stopped.
    const error_messages& messages() const;

    struct impl;

private:
    std::unique_ptr<impl> impl_;
    cancel_group requests_;
    spsc_ring<event>& ring_;
    std::atomic<std::uint64_t> lost_{0};
};

}  // namespace openloop
