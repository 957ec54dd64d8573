#pragma once
// One keep-alive connection to the target, over TCP or TLS: the stream, the
// read buffer that outlives a response, and what the pool knows about it.

#include "openloop/base/executor.hpp"

#include <boost/asio/ssl/context.hpp>
#include <boost/beast/core/flat_buffer.hpp>

#include <cstdint>
#include <optional>

namespace openloop {

class connection {
public:
    explicit connection(boost::asio::io_context& io) : tcp_(std::in_place, io) {}
    connection(boost::asio::io_context& io, boost::asio::ssl::context& tls) : tls_(std::in_place, io, tls) {}

    bool is_tls() const { return tls_.has_value(); }
    tcp_stream& lowest() { return tls_ ? boost::beast::get_lowest_layer(*tls_) : *tcp_; }
    tls_stream& tls() { return *tls_; }

    // Calls f with the stream requests go through (the TLS stream, or the
    // TCP one) and returns what it returns: one place for the choice
    // instead of an if at every use. Both calls must return the same type.
    template <class F>
    decltype(auto) with_stream(F&& f) {
        return tls_ ? f(*tls_) : f(*tcp_);
    }

    // True when the peer has closed (FIN or RST) or, on plain HTTP, sent bytes
    // no request asked for (a 408 before closing): not a connection to write
    // on. A non-blocking peek, so it costs one syscall and never waits. TLS
    // may hold post-handshake messages (session tickets), so bytes alone do
    // not condemn it.
    bool peer_gone();
    void close();

    boost::beast::flat_buffer buffer;
    std::int64_t idle_since_ns = 0;  // when it last went back into the pool
    bool served = false;             // answered a request: the server chose to keep it open

private:
    std::optional<tcp_stream> tcp_;
    std::optional<tls_stream> tls_;
};

}  // namespace openloop
