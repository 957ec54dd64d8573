#pragma once
// The simulator's listening side: the TLS context connections are served
// with, the bound listening socket, and the accept loop, which keeps the open
// connections served while the process is out of descriptors rather than
// spinning a core on an accept that fails at once.

#include "openloop/base/executor.hpp"
#include "openloop/sim/config.hpp"
#include "openloop/sim/metrics.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ssl/context.hpp>

#include <functional>
#include <optional>

namespace openloop {

// What the acceptor yields: a connected socket on io_executor.
using tcp_socket = boost::asio::ip::tcp::socket::rebind_executor<io_executor>::other;

// Empty without --tls-cert and --tls-key; throws input_error when only one is
// given or a file does not load.
std::optional<boost::asio::ssl::context> server_tls_context(const sim_config& cfg);

// Listening on cfg's host and port (0: any free one); throws
// std::runtime_error naming them when it cannot.
tcp_acceptor open_listener(boost::asio::io_context& io, const sim_config& cfg);

// Hands each accepted socket (Nagle off) to serve until the acceptor is
// closed; counts its pauses for lack of descriptors in counters.
boost::asio::awaitable<void> accept_loop(tcp_acceptor acceptor, sim_counters& counters,
                                         std::function<void(tcp_socket)> serve);

}  // namespace openloop
