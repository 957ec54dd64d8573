#pragma once
// The client side of a run: HTTP/1.1 keep-alive connections to one target
// over TCP or TLS, and the request coroutine that writes a prepared request,
// streams the SSE response, timestamps every read and pushes events into the
// ring. Runs on the io thread only: nothing here blocks, and nothing per
// token allocates or formats text.

#include "openloop/measure/event.hpp"
#include "openloop/measure/ring.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace openloop {

struct target_url {
    bool tls = false;
    std::string host;       // name or address (an IPv6 address without brackets)
    std::string port;       // defaults to 80 / 443
    std::string base_path;  // e.g. "/v1", no trailing slash
    std::string host_header;
    std::string display() const;  // scheme://host:port/base, never credentials
};
// Parses "http(s)://host[:port][/base]"; throws std::invalid_argument saying what is wrong.
target_url parse_target_url(std::string_view url);

struct client_options {
    target_url target;
    std::string path;  // request path, e.g. "/v1/chat/completions"
    std::vector<std::pair<std::string, std::string>> headers;  // extra headers; values may be secrets
    std::string ca_file;
    bool insecure = false;  // skip certificate and host name verification
    std::chrono::milliseconds connect_timeout{10'000};
    std::chrono::milliseconds first_token_timeout{0};  // 0: none
    std::chrono::milliseconds idle_timeout{0};         // between reads once streaming; 0: none
    std::chrono::milliseconds total_timeout{0};        // 0: none
    std::size_t max_body = 256u << 20;
    std::size_t spare_connections = 0;  // idle connections kept ready, so connects stay off the send path
    // A pooled connection idle longer than this is closed, never written on:
    // servers close idle keep-alive connections (uvicorn and cpp-httplib after
    // 5 s), and a request written as the server closes is lost. Spares past
    // it are replaced by fresh ones. 0: no limit.
    std::chrono::milliseconds keep_alive_idle{4'000};
};

// A request prepared ahead of its send time: the complete HTTP/1.1 bytes.
struct prepared_request {
    std::string bytes;
    int input_tokens = 0;
    int max_tokens = 0;
};
std::string build_http_request(const client_options& o, std::string_view request_id, std::string_view json_body);

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

    // One request, start to end; every outcome ends in a done or failed event.
    boost::asio::awaitable<void> run(std::uint64_t index, const prepared_request& req, std::int64_t intended_ns,
                                     std::int64_t flags);

    // A plain GET for setup (model discovery): the body of a 200 answer, or an exception.
    boost::asio::awaitable<std::string> get(std::string path);
    // A JSON POST for setup (tokenizer calibration): the status and body of
    // any answer, or an exception when there was none.
    boost::asio::awaitable<std::pair<int, std::string>> post(std::string path, std::string json_body);

    void emit(const event& e) noexcept;  // into the ring; counts a loss when it is full
    void close_all();                    // aborts every connection (grace period over) and stops the refresh
    std::uint64_t lost_events() const noexcept { return lost_.load(std::memory_order_relaxed); }
    std::size_t in_flight() const noexcept { return in_flight_; }

private:
    struct connection;
    struct impl;
    std::unique_ptr<impl> impl_;
    spsc_ring<event>& ring_;
    std::atomic<std::uint64_t> lost_{0};
    std::size_t in_flight_ = 0;
};

}  // namespace openloop
