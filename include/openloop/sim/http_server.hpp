#pragma once
// The simulator's HTTP/1.1 server (TCP or TLS): one coroutine per connection
// (accepted by listener.hpp) with keep-alive handling as real servers do it
// (idle timeout, request cap, quirks) and the routes; what generates is
// answered by completion_handler.

#include "openloop/sim/config.hpp"

#include <boost/asio/io_context.hpp>

#include <memory>

namespace openloop {

class http_server {
public:
    // Loads the TLS files and opens the request log; throws std::runtime_error
    // on bad configuration.
    http_server(boost::asio::io_context& io, sim_config cfg);
    ~http_server();

    // Binds, prints "openloop-sim listening on URL", and spawns the accept loop
    // and the engine on io. Throws std::runtime_error when it cannot listen.
    void start();
    void flush_log();

private:
    class impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace openloop
