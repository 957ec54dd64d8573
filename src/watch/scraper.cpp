#include "openloop/watch/scraper.hpp"

#include "openloop/base/executor.hpp"
#include "openloop/base/input_error.hpp"
#include "openloop/base/url.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/http.hpp>

#include <optional>

#include <openssl/ssl.h>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;

scrape_url parse_scrape_url(std::string_view url) {
    auto bad = [&](std::string_view why) {
        // The message must not repeat a password it refuses.
        return input_error("scrape URL '" + redact_userinfo(url) + "': " + std::string(why));
    };
    url_parts p;
    switch (parse_url(url, p)) {
    case url_fault::none: break;
    case url_fault::no_scheme: throw bad("needs http:// or https://");
    case url_fault::credentials: throw bad("credentials in the URL are not supported");
    case url_fault::unclosed_bracket: throw bad("unclosed [ in the host");
    case url_fault::junk_after_bracket: throw bad("junk after the [host]");
    case url_fault::no_host: throw bad("no host");
    case url_fault::empty_port: throw bad("empty port");
    case url_fault::bad_port: throw bad("port must be 1..65535");
    }
    scrape_url u;
    u.text = url;
    u.tls = p.tls;
    u.host = p.host;
    u.port = p.port;
    u.target = p.rest.empty() ? "/metrics" : std::string(p.rest);
    if (u.target.front() != '/') u.target.insert(0, "/");
    return u;
}

struct scraper::tls_state {
    ssl::context ctx{ssl::context::tls_client};
    explicit tls_state(const std::string& ca_file) {
        ctx.set_default_verify_paths();
        if (!ca_file.empty()) ctx.load_verify_file(ca_file);
        ctx.set_verify_mode(ssl::verify_peer);
    }
};

namespace {

std::string describe(const boost::system::error_code& ec) {
    if (ec == beast::error::timeout || ec == net::error::operation_aborted) return "timed out";
    if (ec == http::error::body_limit) return "body over the limit";
    return ec.message();
}

// Request, response; the stream is connected (and TLS handshaken). The
// error, or nothing.
template <class Stream>
net::awaitable<std::optional<std::string>> exchange(Stream& stream, const scrape_url& u, const scraper_options& o,
                                                    scrape_result& out) {
    http::request<http::empty_body> req{http::verb::get, u.target, 11};
    const bool v6 = u.host.find(':') != std::string::npos;
    req.set(http::field::host, (v6 ? "[" + u.host + "]" : u.host) + ":" + u.port);
    req.set(http::field::user_agent, "openloop");
    req.set(http::field::accept, "text/plain;version=0.0.4, */*;q=0.1");
    req.set(http::field::connection, "close");
    auto [wec, wn] = co_await http::async_write(stream, req);
    if (wec) co_return "sending the request: " + describe(wec);
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(o.body_limit);
    auto [rec, rn] = co_await http::async_read(stream, buf, parser);
    if (rec) co_return "reading the response: " + describe(rec);
    const auto status = parser.get().result_int();
    if (status != 200) co_return "HTTP " + std::to_string(status);
    out.body = std::move(parser.get().body());
    co_return std::nullopt;
}

struct get_state {
    std::optional<std::string> error;
    bool done = false;
};

net::awaitable<void> fetch(io_executor ex, const scrape_url& u, const scraper_options& o, ssl::context* ctx,
                           scrape_result& out, get_state& st) {
    net::ip::tcp::resolver::rebind_executor<io_executor>::other resolver(ex);
    auto [ec, endpoints] = co_await resolver.async_resolve(u.host, u.port);
    if (ec) {
        st.error = "resolving " + u.host + ": " + describe(ec);
        st.done = true;
        co_return;
    }
    tcp_stream tcp(ex);
    tcp.expires_after(o.timeout);  // connect, handshake, write and read together
    auto [cec, ep] = co_await tcp.async_connect(endpoints);
    if (cec) {
        st.error = "connecting: " + describe(cec);
    } else if (ctx == nullptr) {
        st.error = co_await exchange(tcp, u, o, out);
    } else {
        tls_stream stream(std::move(tcp), *ctx);
        if (!SSL_set_tlsext_host_name(stream.native_handle(), u.host.c_str())) {
            st.error = "TLS: cannot set the server name";
        } else {
            stream.set_verify_callback(ssl::host_name_verification(u.host));
            auto [hec] = co_await stream.async_handshake(ssl::stream_base::client);
            if (hec) st.error = "TLS handshake: " + describe(hec);
            else st.error = co_await exchange(stream, u, o, out);
        }
    }
    st.done = true;
}

}  // namespace

scraper::scraper(std::string_view url, scraper_options options) : url_(parse_scrape_url(url)), options_(options) {}
scraper::~scraper() = default;
scraper::scraper(scraper&&) noexcept = default;
scraper& scraper::operator=(scraper&&) noexcept = default;

scrape_result scraper::get() {
    scrape_result out;
    const auto t0 = std::chrono::steady_clock::now();
    if (url_.tls && !tls_) {
        try {
            tls_ = std::make_unique<tls_state>(options_.ca_file);
        } catch (const std::exception& e) {
            out.error = "scrape " + url_.text + ": TLS setup: " + e.what();
            return out;
        }
    }
    net::io_context io{1};
    get_state st;
    net::co_spawn(io, fetch(io_executor(io.get_executor()), url_, options_, tls_ ? &tls_->ctx : nullptr, out, st),
                  net::detached);
    // The resolver has no deadline of its own: run_for bounds the whole GET.
    io.run_for(options_.timeout + std::chrono::milliseconds(100));
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!st.done) st.error = "timed out";
    if (st.error) {
        out.ok = false;
        out.body.clear();
        out.error = "scrape " + url_.text + ": " + *st.error;
    } else {
        out.ok = true;
    }
    return out;
}

}  // namespace openloop
