#include "openloop/wire/connection_pool.hpp"

#include "openloop/measure/clock.hpp"
#include "openloop/wire/cancel_group.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <openssl/x509v3.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <stdexcept>

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

}  // namespace

connection_pool::connection_pool(net::io_context& io, const client_options& opt)
    : io_(io), opt_(opt), refresh_(io) {}

void connection_pool::setup() {
    if (opt_.target.tls) {
        tls_.emplace(ssl::context::tls_client);
        auto& ctx = *tls_;
        boost::system::error_code ec;
        if (opt_.insecure) {
            ctx.set_verify_mode(ssl::verify_none);
        } else {
            ctx.set_verify_mode(ssl::verify_peer);
            if (!opt_.ca_file.empty()) {
                ctx.load_verify_file(opt_.ca_file, ec);
                if (ec) throw std::runtime_error("--ca-file " + opt_.ca_file + ": " + ec.message());
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

net::awaitable<std::unique_ptr<connection>> connection_pool::open(error_class& cls, std::string& why) {
    if (closing_) {
        cls = error_class::cancelled;
        co_return nullptr;
    }
    auto c = tls_ ? std::make_unique<connection>(io_, *tls_) : std::make_unique<connection>(io_);
    auto& low = c->lowest();
    low.expires_after(opt_.connect_timeout);
    auto [ec, ep] = co_await low.async_connect(endpoints_);
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

net::awaitable<void> connection_pool::open_one() {
    ++opening_;
    co_await add_opening();
}

net::awaitable<void> connection_pool::add_opening() {
    // Behind the requests already due: a connect on loopback costs 15-100 us
    // of the io thread, which belongs to their writes.
    co_await net::post(io_, net::use_awaitable);
    error_class cls{};
    std::string why;  // a spare's failure is met again, and reported, by the request that opens the next one
    auto c = co_await open(cls, why);
    --opening_;
    if (c && !closing_) put_idle(std::move(c));
}

// "127.0.0.1:9", or "host:port (address)" when the name resolved elsewhere.
std::string connection_pool::endpoint_text() const {
    std::string s = opt_.target.host + ":" + opt_.target.port;
    if (!endpoints_.empty()) {
        const std::string addr = endpoints_.begin()->endpoint().address().to_string();
        if (addr != opt_.target.host) s += " (" + addr + ")";
    }
    return s;
}

void connection_pool::put_idle(std::unique_ptr<connection> c) {
    c->idle_since_ns = steady_now_ns();
    idle_.push_back(std::move(c));
}

bool connection_pool::stale(const connection& c, std::int64_t now) const {
    return opt_.keep_alive_idle.count() > 0 &&
           now - c.idle_since_ns > std::chrono::nanoseconds(opt_.keep_alive_idle).count();
}

std::unique_ptr<connection> connection_pool::take_idle() {
    if (wanted_soon_ > 0) --wanted_soon_;
    const std::int64_t now = steady_now_ns();
    while (!idle_.empty()) {
        auto c = std::move(idle_.back());
        idle_.pop_back();
        if (stale(*c, now)) {
            c->close();
            continue;
        }
        if (!c->peer_gone()) return c;
        if (c->served && now - c->idle_since_ns < 1'000'000'000 && ++closed_after_answer_ >= 3 && reused_ok_ == 0)
            reuse_ = false;
        c->close();
    }
    return nullptr;
}

void connection_pool::finished(std::unique_ptr<connection> c, bool reused, bool succeeded, bool reusable) {
    if (succeeded && reused && c->served) ++reused_ok_;
    if (reusable && !closing_ && reuse_) {
        c->served = true;
        c->lowest().expires_never();
        put_idle(std::move(c));
    }
}

void connection_pool::want_soon(std::size_t n) {
    wanted_soon_ = n;
    keep_spares();
}

void connection_pool::keep_spares() {
    const std::size_t target = std::max<std::size_t>(opt_.spare_connections, wanted_soon_);
    while (!closing_ && idle_.size() + opening_ < target) {
        ++opening_;
        net::co_spawn(io_, add_opening(), [](std::exception_ptr e) {
            // Nothing waits on a spare, so its failure is only worth a line.
            if (e) std::fprintf(stderr, "openloop: opening a spare connection: %s\n", cancel_group::describe(e).c_str());
        });
    }
}

// Closes pooled connections past their idle budget and opens fresh spares
// in their place, so that a quiet spell does not leave the next send with
// only connections the server is about to close.
void connection_pool::schedule_refresh() {
    if (closing_ || opt_.keep_alive_idle.count() <= 0) return;
    refresh_.expires_after(std::max(opt_.keep_alive_idle / 4, std::chrono::milliseconds(10)));
    refresh_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || closing_) return;
        const std::int64_t now = steady_now_ns();
        std::erase_if(idle_, [&](const std::unique_ptr<connection>& c) {
            if (!stale(*c, now)) return false;
            c->close();
            return true;
        });
        keep_spares();
        schedule_refresh();
    });
}

void connection_pool::close_all() {
    closing_ = true;
    refresh_.cancel();
    idle_.clear();
}

}  // namespace openloop
