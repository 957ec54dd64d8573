#include "openloop/sim/request_start.hpp"

#include "openloop/base/clock.hpp"

#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/beast/core/error.hpp>

#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace openloop {

namespace net = boost::asio;
using tcp = net::ip::tcp;

namespace {

std::int64_t realtime_ns() {
    timespec t{};
    clock_gettime(CLOCK_REALTIME, &t);
    return std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec;
}

}  // namespace

void enable_receive_timestamps(int fd) {
    const int on = 1;
    // Without them the log keeps the read's own time: nothing to report.
    (void)setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

net::awaitable<request_start> read_request_start(tcp_stream& stream, net::mutable_buffer into,
                                                 std::chrono::nanoseconds idle) {
    using namespace net::experimental::awaitable_operators;
    request_start out;
    auto& socket = stream.socket();
    steady_timer limit(stream.get_executor());
    for (;;) {
        if (idle.count() > 0) {
            limit.expires_after(idle);
            const auto woke = co_await (socket.async_wait(tcp::socket::wait_read) || limit.async_wait());
            if (woke.index() == 1) {
                // As tcp_stream's own expiry does: the socket is closed.
                boost::system::error_code ignored;
                socket.close(ignored);
                out.ec = boost::beast::error::timeout;
                co_return out;
            }
        } else {
            auto [ec] = co_await socket.async_wait(tcp::socket::wait_read);
            if (ec) {
                out.ec = ec;
                co_return out;
            }
        }
        alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
        iovec iov{into.data(), into.size()};
        msghdr m{};
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_control = control;
        m.msg_controllen = sizeof control;
        const ssize_t n = recvmsg(socket.native_handle(), &m, MSG_DONTWAIT);
        const std::int64_t read_at = steady_now_ns();
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;  // woken for nothing
        if (n < 0) {
            out.ec = boost::system::error_code(errno, boost::system::system_category());
            co_return out;
        }
        if (n == 0) {
            out.ec = net::error::eof;
            co_return out;
        }
        out.bytes = static_cast<std::size_t>(n);
        out.at_ns = read_at;
        for (cmsghdr* c = CMSG_FIRSTHDR(&m); c != nullptr; c = CMSG_NXTHDR(&m, c)) {
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SO_TIMESTAMPNS) continue;
            timespec t{};
            std::memcpy(&t, CMSG_DATA(c), sizeof t);
            // The kernel stamps with the real-time clock; the log is steady.
            const std::int64_t kernel = read_at - (realtime_ns() - (std::int64_t{t.tv_sec} * 1'000'000'000 + t.tv_nsec));
            if (kernel < read_at) out.at_ns = kernel;
        }
        co_return out;
    }
}

}  // namespace openloop
