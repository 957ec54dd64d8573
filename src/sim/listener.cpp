#include "openloop/sim/listener.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/sim/request_start.hpp"

#include <boost/asio/ip/address.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace openloop {

namespace net = boost::asio;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

// Out of descriptors (or kernel memory) the connection stays queued and
// accept fails again at once: without a pause the loop spins a core.
bool out_of_resources(const boost::system::error_code& ec) {
    return ec == net::error::no_descriptors || ec == boost::system::errc::too_many_files_open_in_system ||
           ec == net::error::no_buffer_space || ec == net::error::no_memory;
}

}  // namespace

std::optional<ssl::context> server_tls_context(const sim_config& cfg) {
    std::optional<ssl::context> tls;
    if (cfg.tls_cert.empty() && cfg.tls_key.empty()) return tls;
    // The files are the user's input, refused with exit 2 like any other.
    if (cfg.tls_cert.empty() || cfg.tls_key.empty()) throw input_error("sim: --tls-cert and --tls-key go together");
    tls.emplace(ssl::context::tls_server);
    boost::system::error_code ec;
    tls->use_certificate_chain_file(cfg.tls_cert, ec);
    if (ec) throw input_error("sim: --tls-cert " + cfg.tls_cert + ": cannot load the certificate: " + ec.message());
    tls->use_private_key_file(cfg.tls_key, ssl::context::pem, ec);
    if (ec) throw input_error("sim: --tls-key " + cfg.tls_key + ": cannot load the private key: " + ec.message());
    return tls;
}

tcp_acceptor open_listener(net::io_context& io, const sim_config& cfg) {
    boost::system::error_code ec;
    auto address = net::ip::make_address(cfg.host, ec);
    if (ec) throw std::runtime_error("sim: bad --host '" + cfg.host + "': " + ec.message());
    tcp_acceptor acceptor(io);
    tcp::endpoint ep(address, cfg.port);
    acceptor.open(ep.protocol());
    acceptor.set_option(net::socket_base::reuse_address(true));
    acceptor.bind(ep, ec);
    if (ec) throw std::runtime_error("sim: cannot bind " + cfg.host + ":" + std::to_string(cfg.port) + ": " + ec.message());
    acceptor.listen(net::socket_base::max_listen_connections);
    return acceptor;
}

net::awaitable<void> accept_loop(tcp_acceptor acceptor, sim_counters& counters, std::function<void(tcp_socket)> serve) {
    steady_timer backoff(acceptor.get_executor());
    std::chrono::milliseconds pause{0};  // 0: not in an episode of exhaustion
    for (;;) {
        auto [ec, socket] = co_await acceptor.async_accept();
        if (ec == net::error::operation_aborted) co_return;
        if (out_of_resources(ec)) {
            // Back off 10 ms doubling to 100 ms while connections already
            // open keep being served and free descriptors as they close.
            if (pause.count() == 0) {
                std::fprintf(stderr, "openloop sim: cannot accept (%s): pausing new connections until one closes\n",
                             ec.message().c_str());
                pause = std::chrono::milliseconds(10);
            } else {
                pause = std::min(pause * 2, std::chrono::milliseconds(100));
            }
            ++counters.accept_pauses;
            backoff.expires_after(pause);
            co_await backoff.async_wait();
            continue;
        }
        if (ec) continue;  // one failed connection (e.g. reset while queued): keep serving the others
        pause = std::chrono::milliseconds(0);
        socket.set_option(tcp::no_delay(true), ec);
        enable_receive_timestamps(socket.native_handle());
        serve(std::move(socket));
    }
}

}  // namespace openloop
