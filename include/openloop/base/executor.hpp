#pragma once
// The executor every io thread's sockets, streams and timers run on, the
// generator's and the simulator's alike: the io_context's, with
// as_tuple(use_awaitable) as its default completion token, so that
// `co_await s.async_read_some(b)` yields (error_code, n) and errors stay
// values on the hot path (as in Beast's server-flex-awaitable example).
// Operations on these types take no token; Boost 1.81 has no default token
// for plain executors. It lives in base/ because both stages include it and
// neither should depend on the other.
//
// The executor is the io_context's own, not a strand: it fits only an
// io_context run by one thread (io_context{1}), as both stages' are.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/stream.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/ssl/ssl_stream.hpp>

namespace openloop {

using io_executor = boost::asio::as_tuple_t<boost::asio::use_awaitable_t<>>::executor_with_default<
    boost::asio::io_context::executor_type>;
using tcp_stream = boost::beast::tcp_stream::rebind_executor<io_executor>::other;
using tls_stream = boost::beast::ssl_stream<tcp_stream>;
using steady_timer = boost::asio::steady_timer::rebind_executor<io_executor>::other;
// Its async_accept yields (error_code, socket) with the socket on io_executor,
// ready to move into a tcp_stream.
using tcp_acceptor = boost::asio::ip::tcp::acceptor::rebind_executor<io_executor>::other;

}  // namespace openloop
