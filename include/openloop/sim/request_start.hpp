#pragma once
// The first bytes of a connection's next request, and when they reached the
// server. On plain TCP that is the kernel's receive timestamp of the bytes
// read (SO_TIMESTAMPNS), so the simulator's log says when a request arrived
// whatever the simulator was busy with meanwhile (parsing a group's 60 KB
// bodies takes it milliseconds). Data that arrived after the first bytes
// but before they were read shares their timestamp, so it is the later
// one's: still never later than the read. Over TLS, when the read completed.

#include "openloop/base/executor.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace openloop {

struct request_start {
    boost::system::error_code ec;  // beast::error::timeout when idle past the limit (the socket is then closed)
    std::size_t bytes = 0;
    std::int64_t at_ns = 0;        // steady clock
};

// Turns receive timestamps on for an accepted socket (its native handle).
void enable_receive_timestamps(int fd);

// Waits, at most idle (zero: no limit), for the next bytes and reads them into `into`.
boost::asio::awaitable<request_start> read_request_start(tcp_stream& stream, boost::asio::mutable_buffer into,
                                                         std::chrono::nanoseconds idle);

}  // namespace openloop
