#include "openloop/sim/sim.hpp"

#include "openloop/measure/resource_usage.hpp"
#include "openloop/sim/http_server.hpp"

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <csignal>
#include <functional>

#include <unistd.h>

namespace openloop {

namespace net = boost::asio;

void run_sim(const sim_config& cfg) {
    raise_fd_limit();
    net::io_context io{1};
    http_server srv(io, cfg);
    srv.start();
    net::signal_set signals(io, SIGINT, SIGTERM);
    signals.async_wait([&](const boost::system::error_code&, int) { io.stop(); });
    net::steady_timer orphan(io);
    const pid_t parent = getppid();
    std::function<void(const boost::system::error_code&)> watch = [&](const boost::system::error_code& ec) {
        if (ec) return;
        if (getppid() != parent) {
            io.stop();
            return;
        }
        orphan.expires_after(std::chrono::milliseconds(500));
        orphan.async_wait(watch);
    };
    if (cfg.exit_with_parent) watch({});
    io.run();
    srv.flush_log();
}

}  // namespace openloop
