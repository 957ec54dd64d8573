#pragma once
// Opening connections to the target: the TCP connect, then the TLS handshake
// where configured, with the certificate and host name checked by OpenSSL.

#include "openloop/measure/event.hpp"
#include "openloop/wire/client_options.hpp"
#include "openloop/wire/connection.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl/context.hpp>

#include <memory>
#include <optional>
#include <string>

namespace openloop {

// Loads path (--ca-file) into ctx as CA certificates to verify with; throws
// input_error naming the flag and the file when it cannot be read or holds no
// PEM certificate, the user's input like any other file they name.
void load_ca_file(boost::asio::ssl::context& ctx, const std::string& path);

class connector {
public:
    connector(boost::asio::io_context& io, const client_options& opt);

    // Resolves the host and prepares TLS. Setup, before the run: it may block
    // and throws std::runtime_error with context on failure (input_error for
    // a --ca-file that is not one).
    void setup();

    // A new connection, or null with cls saying why there is none and why
    // naming the cause ("connect 127.0.0.1:9: Connection refused", "TLS
    // handshake with host:443: certificate rejected: self-signed
    // certificate"). The connect and the handshake both honour the caller's
    // cancellation.
    boost::asio::awaitable<std::unique_ptr<connection>> open(error_class& cls, std::string& why);

private:
    std::string endpoint_text() const;

    boost::asio::io_context& io_;
    const client_options& opt_;
    std::optional<boost::asio::ssl::context> tls_;
    boost::asio::ip::tcp::resolver::results_type endpoints_;
};

}  // namespace openloop
