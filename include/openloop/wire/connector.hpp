#pragma once
// The connections to the target: opening them (TCP connect, then the TLS
// handshake where configured), keeping the idle ones fresh, and deciding
// which connection a request may be written on.

#include "openloop/measure/event.hpp"
#include "openloop/wire/client_options.hpp"
#include "openloop/wire/connection.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

class connection_pool {
public:
    connection_pool(boost::asio::io_context& io, const client_options& opt);

    // Resolves the host and prepares TLS. Setup, before the run: it may block
    // and throws std::runtime_error with context on failure.
    void setup();

    // A new connection, or null with cls saying why there is none and why
    // naming the cause ("connect 127.0.0.1:9: Connection refused", "TLS
    // handshake with host:443: certificate rejected: self-signed
    // certificate"). The connect and the handshake both honour the caller's
    // cancellation.
    boost::asio::awaitable<std::unique_ptr<connection>> open(error_class& cls, std::string& why);
    // Opens one connection into the idle pool.
    boost::asio::awaitable<void> open_one();

    // The freshest pooled connection that is still within its idle budget
    // and still open, or null; the ones it passes over are closed.
    std::unique_ptr<connection> take_idle();
    // A request ended on c: back into the pool when the response left it
    // usable and the server keeps connections. reused: c came from the pool.
    void finished(std::unique_ptr<connection> c, bool reused, bool succeeded, bool reusable);

    // Opens spares until spare_connections (or, when more, the connections
    // wanted soon) are idle or opening.
    void keep_spares();
    // n requests are due soon: connections for them are opened now, in the
    // slack before their send time, not on the send path. Each connection
    // taken counts one of them as served.
    void want_soon(std::size_t n);
    // Every keep_alive_idle / 4, replaces stale pooled connections with fresh spares.
    void schedule_refresh();
    // Drops the idle connections and opens no more; requests in flight are
    // the caller's to cancel.
    void close_all();
    // A reference, for coroutines that look again after each suspension.
    const bool& closing() const { return closing_; }

private:
    // Opens one connection into the idle pool, counted in opening_ already.
    boost::asio::awaitable<void> add_opening();
    void put_idle(std::unique_ptr<connection> c);
    std::string endpoint_text() const;
    bool stale(const connection& c, std::int64_t now) const;

    boost::asio::io_context& io_;
    const client_options& opt_;
    std::optional<boost::asio::ssl::context> tls_;
    boost::asio::ip::tcp::resolver::results_type endpoints_;
    std::vector<std::unique_ptr<connection>> idle_;  // most recently used at the back
    std::size_t opening_ = 0;
    std::size_t wanted_soon_ = 0;
    bool closing_ = false;
    // Some servers close every connection right after a streamed answer,
    // whatever their Keep-Alive header says (llama.cpp's llama-server does).
    // Seen a few times and never contradicted by a successful reuse, such
    // connections stop going back into the pool, so no request races a FIN.
    bool reuse_ = true;
    int closed_after_answer_ = 0;
    int reused_ok_ = 0;
    steady_timer refresh_;
};

}  // namespace openloop
