#pragma once
// How the simulator's answers reach the socket, for http_server: a whole
// response, raw bytes, one HTTP/1.1 chunk frame, a pause, and the wait for an
// engine's tokens that notices a client hanging up meanwhile. Each returns
// false (or true for a hang-up) instead of throwing: a client that went away
// is not a server error.

#include "openloop/base/executor.hpp"
#include "openloop/sim/engine_runner.hpp"

#include <boost/asio.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <array>
#include <charconv>
#include <chrono>
#include <string>
#include <string_view>

namespace openloop::sim_io {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

template <class Stream>
tcp_stream& tcp_of(Stream& s) {
    return beast::get_lowest_layer(s);
}

// The whole response: status, Content-Type, the request's x-request-id echoed.
template <class Stream>
net::awaitable<bool> send(Stream& stream, const http::request<http::string_body>& req, http::status status,
                          std::string body, std::string_view content_type = "application/json", int retry_after = -1) {
    http::response<http::string_body> res{status, req.version()};
    res.set(http::field::server, "openloop-sim");
    res.set(http::field::content_type, content_type);
    if (auto id = req.find("x-request-id"); id != req.end()) res.set("x-request-id", id->value());
    if (retry_after >= 0) res.set(http::field::retry_after, std::to_string(retry_after));
    res.keep_alive(req.keep_alive());
    res.body() = std::move(body);
    res.prepare_payload();
    auto [ec, n] = co_await http::async_write(stream, res);
    co_return !ec;
}

// The head of a streamed answer: 200, text/event-stream, chunked; its body follows in chunk frames.
template <class Stream>
net::awaitable<bool> write_stream_head(Stream& stream, const http::request<http::string_body>& req) {
    http::response<http::empty_body> res{http::status::ok, req.version()};
    res.set(http::field::server, "openloop-sim");
    res.set(http::field::content_type, "text/event-stream");
    res.set(http::field::cache_control, "no-cache");
    if (auto id = req.find("x-request-id"); id != req.end()) res.set("x-request-id", id->value());
    res.keep_alive(req.keep_alive());
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    auto [ec, n] = co_await http::async_write_header(stream, sr);
    co_return !ec;
}

template <class Stream>
net::awaitable<bool> write_all(Stream& stream, std::string_view data) {
    auto [ec, n] = co_await net::async_write(stream, net::buffer(data.data(), data.size()));
    co_return !ec;
}

// Frames buf as one HTTP/1.1 chunk and writes it.
template <class Stream>
net::awaitable<bool> write_chunk(Stream& stream, std::string& frame, const std::string& buf) {
    frame.clear();
    char hex[16];
    auto [end, ec0] = std::to_chars(hex, hex + sizeof hex, buf.size(), 16);
    frame.append(hex, end).append("\r\n");
    std::array<net::const_buffer, 3> parts{net::buffer(frame), net::buffer(buf), net::buffer("\r\n", 2)};
    auto [ec, n] = co_await net::async_write(stream, parts);
    co_return !ec;
}

// Waits for lr's next tokens; true when the client hung up first. While
// watch, the socket is watched too: readable with nothing to read is EOF.
// Bytes waiting are a pipelined next request, left for the session to read;
// watching then stops (watch := false).
template <class Stream>
net::awaitable<bool> wait_or_hangup(Stream& stream, live_request& lr, bool& watch) {
    using namespace net::experimental::awaitable_operators;
    if (!watch) {
        co_await lr.wake.async_wait();
        co_return false;
    }
    auto& socket = tcp_of(stream).socket();
    const auto woke = co_await (lr.wake.async_wait() || socket.async_wait(net::ip::tcp::socket::wait_read));
    if (woke.index() == 0) co_return false;
    char byte = 0;
    boost::system::error_code ec;
    const std::size_t n = socket.receive(net::buffer(&byte, 1), net::ip::tcp::socket::message_peek, ec);
    if (ec || n == 0) co_return true;
    watch = false;
    co_return false;
}

// Waits until lr's request left the engine; true when the client hung up first.
template <class Stream>
net::awaitable<bool> wait_finished(Stream& stream, live_request& lr) {
    bool watch = true, gone = false;
    while (!lr.finished && !gone) gone = co_await wait_or_hangup(stream, lr, watch);
    co_return gone;
}

template <class Stream>
net::awaitable<void> sleep_ms(Stream& stream, int ms) {
    steady_timer t(stream.get_executor(), std::chrono::milliseconds(ms));
    co_await t.async_wait();
}

}  // namespace openloop::sim_io
