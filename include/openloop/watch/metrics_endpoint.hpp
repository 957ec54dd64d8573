#pragma once
// openloop's own Prometheus endpoint (--metrics-listen): a small HTTP/1.1
// server on its own thread and io_context, never the run's io thread, that
// serves the latest text the reporter published. GET /metrics (exposition
// 0.0.4), GET /live.json (measure/live_json) and GET / the live page that
// draws it (watch/live_page), 404 elsewhere, 405 for other methods;
// keep-alive (Prometheus keeps its connections), an idle timeout per
// connection, a bound on reading each request, and bounds on connections and
// request size so a stray client cannot make it hold more than a little
// memory, and idle clients cannot lock a scraper out (`:PORT` listens on
// every interface).
//
// The hook, where --metrics-listen is given: construct it at setup (bind
// errors surface there), start() it, then once a second on the reporter
// thread
//     live_view v;  v.stats = &stats;  v.in_flight = ...;  v.window = ...;
//     v.generator_rss_bytes = resident_memory_bytes();
//     endpoint.publish(format_live_metrics(v), format_live_json(v, ...));
// and stop() it (or let it go out of scope) after the last publish.

#include "openloop/watch/listen_address.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace openloop {

struct metrics_endpoint_options {
    std::chrono::milliseconds idle_timeout{60'000};    // a kept connection's wait for its next request
    // A fresh connection's wait for its first request, and any request's read
    // from its first byte, and its answer's write: a client that connects and
    // says nothing, or sends its headers a byte at a time, is closed after it.
    std::chrono::milliseconds request_timeout{5'000};
    // Beyond: the connection that waited longest on its client is closed for the new one.
    std::size_t max_connections = 64;
    std::size_t max_request_bytes = 8192;              // headers and body; beyond: the connection is closed
};

class metrics_endpoint {
public:
    // Parses listen (see parse_listen_address: throws input_error) and binds
    // it; a bind failure throws std::runtime_error naming the address and
    // the system's reason. An address not on loopback prints a warning to
    // stderr: anyone who reaches it reads the metrics.
    explicit metrics_endpoint(const std::string& listen, metrics_endpoint_options options = {});
    ~metrics_endpoint();  // stop()
    metrics_endpoint(const metrics_endpoint&) = delete;
    metrics_endpoint& operator=(const metrics_endpoint&) = delete;

    // Starts serving on the endpoint's thread; throws std::logic_error if
    // started before or stopped.
    void start();
    // Thread-safe; what GET /metrics and GET /live.json serve from now on
    // (before the first call: a comment line only, and {}).
    void publish(std::string text, std::string live_json = {});
    // Closes the listener and every connection, and joins the thread.
    // Idempotent; returns promptly even with clients connected.
    void stop();

    std::uint16_t port() const noexcept;  // the bound port (the chosen one for :0)
    const listen_address& address() const noexcept;

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace openloop
