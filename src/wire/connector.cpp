#include "openloop/wire/connector.hpp"

#include <boost/asio/error.hpp>

#include <openssl/x509v3.h>

#include "openloop/base/input_error.hpp"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <tuple>

#include <sys/resource.h>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

bool is_ip_literal(const std::string& host) {
    boost::system::error_code ec;
    net::ip::make_address(host, ec);
    return !ec;
}

// Why a handshake failed, from OpenSSL's verify result where the
// certificate was the reason ("certificate has expired", "self-signed
// certificate", "hostname mismatch"), else the TLS error's own text.
std::string handshake_failure(SSL* ssl, const boost::system::error_code& ec) {
    if (const long v = SSL_get_verify_result(ssl); v != X509_V_OK)
        return std::string("certificate rejected: ") + X509_verify_cert_error_string(v);
    return ec.message();
}

bool out_of_descriptors(const boost::system::error_code& ec) {
    return ec == boost::system::errc::too_many_files_open || ec == boost::system::errc::too_many_files_open_in_system;
}

// Whose limit was met and how to raise it: the server is not to blame.
std::string descriptor_failure(const boost::system::error_code& ec) {
    std::string s = ec == boost::system::errc::too_many_files_open
                        ? "openloop is out of file descriptors (EMFILE)"
                        : "the system is out of file descriptors (ENFILE)";
    // openloop raised its soft limit to the hard one at start: the hard one is what to raise.
    if (rlimit lim{}; getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur != RLIM_INFINITY)
        s += ": its limit is " + std::to_string(lim.rlim_cur) + " open files";
    return s + ", one per request in flight; raise the hard limit (ulimit -Hn 65536 as root, LimitNOFILE= "
               "for a service, fs.file-max for ENFILE) or cap what is in flight (--max-concurrency)";
}

}  // namespace

void load_ca_file(ssl::context& ctx, const std::string& path) {
    if (!std::ifstream(path))
        throw input_error("--ca-file " + path + ": cannot read the file: " + std::strerror(errno));
    boost::system::error_code ec;
    ctx.load_verify_file(path, ec);
    if (ec) throw input_error("--ca-file " + path + ": not a PEM file of CA certificates: " + ec.message());
}

connector::connector(net::io_context& io, const client_options& opt) : io_(io), opt_(opt) {}

void connector::setup() {
    if (opt_.target.tls) {
        tls_.emplace(ssl::context::tls_client);
        auto& ctx = *tls_;
        boost::system::error_code ec;
        if (opt_.insecure) {
            ctx.set_verify_mode(ssl::verify_none);
        } else {
            ctx.set_verify_mode(ssl::verify_peer);
            if (!opt_.ca_file.empty()) {
                load_ca_file(ctx, opt_.ca_file);
            } else {
                ctx.set_default_verify_paths(ec);
                if (ec) throw std::runtime_error("cannot load the system CA certificates: " + ec.message());
            }
        }
    }
    tcp::resolver resolver(io_);
    boost::system::error_code ec;
    endpoints_ = resolver.resolve(opt_.target.host, opt_.target.port, ec);
    if (ec) throw std::runtime_error("cannot resolve " + opt_.target.host + ":" + opt_.target.port + ": " + ec.message());
}

net::awaitable<std::unique_ptr<connection>> connector::open(error_class& cls, std::string& why) {
    auto c = tls_ ? std::make_unique<connection>(io_, *tls_) : std::make_unique<connection>(io_);
    auto& low = c->lowest();
    // Each address in turn, on a socket opened here: asio's range connect,
    // unable to open one, reports EMFILE as "Operation canceled", which read
    // as the server's fault. One deadline covers them all.
    low.expires_after(opt_.connect_timeout);
    boost::system::error_code ec = net::error::host_not_found;
    for (const auto& entry : endpoints_) {
        low.socket().close(ec);
        low.socket().open(entry.endpoint().protocol(), ec);
        if (ec && out_of_descriptors(ec)) {
            cls = error_class::fd_limit;
            why = descriptor_failure(ec);
            co_return nullptr;
        }
        if (ec) continue;
        std::tie(ec) = co_await low.async_connect(entry.endpoint());
        if (!ec || ec == beast::error::timeout || ec == net::error::operation_aborted) break;
    }
    if (ec) {
        cls = ec == beast::error::timeout ? error_class::timeout_connect : error_class::connect;
        why = "connect " + endpoint_text() + ": " + (cls == error_class::timeout_connect ? "timed out" : ec.message());
        co_return nullptr;
    }
    boost::system::error_code ignored;
    low.socket().set_option(tcp::no_delay(true), ignored);
    // Reads wait for readiness and then read what is there (exchange.hpp).
    low.socket().non_blocking(true, ignored);
    if (c->is_tls()) {
        auto& tls = c->tls();
        SSL* native = tls.native_handle();
        const bool ip = is_ip_literal(opt_.target.host);
        if (!ip) SSL_set_tlsext_host_name(native, opt_.target.host.c_str());
        // OpenSSL checks the name itself, so that a mismatch reads as
        // "hostname mismatch" in the verify result, not as a bare failure.
        if (!opt_.insecure) {
            X509_VERIFY_PARAM* param = SSL_get0_param(native);
            if (ip) {
                X509_VERIFY_PARAM_set1_ip_asc(param, opt_.target.host.c_str());
            } else {
                SSL_set1_host(native, opt_.target.host.c_str());
            }
        }
        auto [hec] = co_await tls.async_handshake(ssl::stream_base::client);
        if (hec) {
            cls = hec == beast::error::timeout ? error_class::timeout_connect : error_class::tls;
            why = "TLS handshake with " + opt_.target.host + ":" + opt_.target.port + ": " +
                  (cls == error_class::timeout_connect ? std::string("timed out") : handshake_failure(native, hec));
            co_return nullptr;
        }
    }
    low.expires_never();
    co_return c;
}

// "127.0.0.1:9", or "host:port (address)" when the name resolved elsewhere.
std::string connector::endpoint_text() const {
    std::string s = opt_.target.host + ":" + opt_.target.port;
    if (!endpoints_.empty()) {
        const std::string addr = endpoints_.begin()->endpoint().address().to_string();
        if (addr != opt_.target.host) s += " (" + addr + ")";
    }
    return s;
}

}  // namespace openloop
