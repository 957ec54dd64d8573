#pragma once
// A raw HTTP/1.1 server for the hostile-server tests. It reads each request
// head (and the body its Content-Length declares) and answers with a scripted
// behaviour, written byte for byte, so it can send what no HTTP library would:
// endless headers, broken chunked encoding, lying lengths, garbage, silence.
// Plain POSIX sockets and a thread per connection, on 127.0.0.1: independent
// of openloop's client and of Beast, so a bug there cannot hide one here.

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <stdexcept>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

namespace hostile {

struct request {
    std::string head;  // request line and headers, up to the blank line
    std::string body;
};

// One accepted connection, as a script sees it. Every call returns within
// ~100 ms of the server stopping, so a script that streams forever ends too.
class connection {
public:
    connection(int fd, const std::atomic<bool>& stop, std::atomic<std::int64_t>& sent)
        : fd_(fd), stop_(stop), sent_(sent) {}

    // Writes all of bytes; false once the peer is gone or the server stops.
    bool send(std::string_view bytes) {
        while (!bytes.empty()) {
            if (stop_) return false;
            pollfd p{fd_, POLLOUT, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const ssize_t n = ::send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
            if (n <= 0) return false;
            sent_ += n;
            bytes.remove_prefix(static_cast<std::size_t>(n));
        }
        return true;
    }

    // One chunk of chunked transfer encoding (data must not be empty: an
    // empty chunk ends the body, send("0\r\n\r\n") for that).
    bool send_chunk(std::string_view data) {
        char size[24];
        std::snprintf(size, sizeof size, "%zx\r\n", data.size());
        return send(size) && send(data) && send("\r\n");
    }

    // Sleeps; false when the server stops meanwhile.
    bool pause(std::chrono::milliseconds d) {
        const auto until = std::chrono::steady_clock::now() + d;
        while (std::chrono::steady_clock::now() < until) {
            if (stop_) return false;
            std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(
                std::chrono::milliseconds(10), until - std::chrono::steady_clock::now()));
        }
        return !stop_;
    }

    // Says nothing until the peer closes (or the server stops); what the peer
    // sends meanwhile is read and dropped.
    void wait_for_close() {
        char buf[4096];
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return;
        }
    }

    // Aborts the connection once the script returns: with a zero linger the
    // close sends a RST, and the peer's next read fails with ECONNRESET.
    void reset() {
        linger l{1, 0};
        ::setsockopt(fd_, SOL_SOCKET, SO_LINGER, &l, sizeof l);
        reset_ = true;
    }
    bool was_reset() const { return reset_; }

    // Reads the next request; false when the peer closed, the server stops, or
    // the head is not a request (over 1 MiB without a blank line).
    bool read_request(request& out) {
        out = {};
        std::size_t end;
        while ((end = pending_.find("\r\n\r\n")) == std::string::npos) {
            if (pending_.size() > (1u << 20) || !fill()) return false;
        }
        out.head = pending_.substr(0, end + 4);
        pending_.erase(0, end + 4);
        const std::size_t length = content_length(out.head);
        while (pending_.size() < length)
            if (!fill()) return false;
        out.body = pending_.substr(0, length);
        pending_.erase(0, length);
        return true;
    }

private:
    bool fill() {
        char buf[16384];
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const ssize_t n = ::recv(fd_, buf, sizeof buf, MSG_DONTWAIT);
            if (n > 0) {
                pending_.append(buf, static_cast<std::size_t>(n));
                return true;
            }
            if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) return false;
        }
        return false;
    }

    static std::size_t content_length(const std::string& head) {
        constexpr std::string_view name = "\r\ncontent-length:";
        for (std::size_t i = 0; i + name.size() <= head.size(); ++i)
            if (::strncasecmp(head.data() + i, name.data(), name.size()) == 0)
                return std::strtoull(head.c_str() + i + name.size(), nullptr, 10);
        return 0;
    }

    int fd_;
    const std::atomic<bool>& stop_;
    std::atomic<std::int64_t>& sent_;
    std::string pending_;
    bool reset_ = false;
};

// Answers one request; returns whether the connection may carry another.
using script = std::function<bool(connection&, const request&)>;

enum class on_accept {
    serve,  // read requests and run the script on each
    close,  // close the connection at once, before reading anything
};

class server {
public:
    explicit server(script s, on_accept mode = on_accept::serve) : script_(std::move(s)), mode_(mode) {
        fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd_ < 0) throw std::runtime_error(std::string("hostile server: socket: ") + std::strerror(errno));
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof a;
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0 || ::listen(fd_, 128) != 0 ||
            ::getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
            const std::string why = std::strerror(errno);
            ::close(fd_);
            throw std::runtime_error("hostile server: bind/listen on 127.0.0.1:0: " + why);
        }
        port_ = ntohs(a.sin_port);
        acceptor_ = std::thread([this] { accept_loop(); });
    }
    server(const server&) = delete;
    server& operator=(const server&) = delete;

    ~server() {
        stop_ = true;
        acceptor_.join();
        std::lock_guard lock(mutex_);
        for (auto& t : threads_) t.join();
        ::close(fd_);
    }

    unsigned short port() const { return port_; }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

    // What the server saw, for the tests' own checks.
    int connections() const { return connections_; }
    int requests() const { return requests_; }
    // The most requests any one connection carried: 1 means no connection was
    // reused after its response.
    int most_requests_per_connection() const { return most_per_connection_; }
    std::int64_t bytes_sent() const { return sent_; }

private:
    void accept_loop() {
        while (!stop_) {
            pollfd p{fd_, POLLIN, 0};
            if (::poll(&p, 1, 100) <= 0) continue;
            const int c = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
            if (c < 0) continue;
            ++connections_;
            if (mode_ == on_accept::close) {
                ::close(c);
                continue;
            }
            std::lock_guard lock(mutex_);
            threads_.emplace_back([this, c] { serve(c); });
        }
    }

    void serve(int fd) {
        connection conn(fd, stop_, sent_);
        request req;
        int served = 0;
        while (conn.read_request(req)) {
            ++requests_;
            ++served;
            int most = most_per_connection_;
            while (served > most && !most_per_connection_.compare_exchange_weak(most, served)) {
            }
            if (!script_(conn, req) || conn.was_reset()) break;
        }
        ::close(fd);
    }

    script script_;
    on_accept mode_;
    int fd_ = -1;
    unsigned short port_ = 0;
    std::atomic<bool> stop_{false};
    std::atomic<int> connections_{0}, requests_{0}, most_per_connection_{0};
    std::atomic<std::int64_t> sent_{0};
    std::mutex mutex_;
    std::vector<std::thread> threads_;
    std::thread acceptor_;
};

}  // namespace hostile
