#include "openloop/watch/metrics_endpoint.hpp"

#include "openloop/base/executor.hpp"
#include "openloop/watch/live_page.hpp"

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/ip/address.hpp>
#include <boost/asio/ip/v6_only.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include <cstdio>
#include <exception>
#include <list>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

constexpr const char* metrics_content_type = "text/plain; version=0.0.4; charset=utf-8";

std::string shown(const listen_address& a) {
    if (a.host.empty()) return ":" + std::to_string(a.port);
    if (a.host.find(':') != std::string::npos) return "[" + a.host + "]:" + std::to_string(a.port);
    return a.host + ":" + std::to_string(a.port);
}

void log_exception(std::exception_ptr e) {
    if (!e) return;
    try {
        std::rethrow_exception(e);
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "openloop: metrics endpoint: %s\n", ex.what());
    }
}

}  // namespace

struct metrics_endpoint::impl {
    listen_address address;
    metrics_endpoint_options options;
    net::io_context io{1};
    tcp_acceptor acceptor{io};
    std::uint16_t port = 0;
    std::thread thread;
    bool started = false;
    bool stopped = false;

    std::mutex mutex;  // guards text: publish() is called from the reporter thread
    std::shared_ptr<const std::string> text =
        std::make_shared<const std::string>("# openloop: nothing published yet\n");
    std::shared_ptr<const std::string> json = std::make_shared<const std::string>("{}");

    // A connection as the endpoint thread tracks it: listed while it may be
    // evicted, most recently active first.
    struct slot {
        tcp_stream* stream;
        bool listed = false;
    };

    // The endpoint thread's only.
    std::list<slot*> connections;
    std::size_t open_connections = 0;  // counted from accept, before a session first runs
    bool stopping = false;

    void open() {
        // All interfaces: IPv6 with IPv4 mapped where the host has IPv6, else IPv4.
        std::vector<tcp::endpoint> candidates;
        if (address.host.empty()) {
            candidates = {tcp::endpoint(tcp::v6(), address.port), tcp::endpoint(tcp::v4(), address.port)};
        } else {
            candidates = {tcp::endpoint(net::ip::make_address(address.host), address.port)};
        }
        boost::system::error_code ec;
        for (const auto& ep : candidates) {
            acceptor.close(ec);
            acceptor.open(ep.protocol(), ec);
            if (ec) continue;
            if (ep.protocol() == tcp::v6() && address.host.empty()) {
                acceptor.set_option(net::ip::v6_only(false), ec);
            }
            acceptor.set_option(net::socket_base::reuse_address(true), ec);
            acceptor.bind(ep, ec);
            if (ec) continue;
            acceptor.listen(net::socket_base::max_listen_connections, ec);
            if (ec) continue;
            port = acceptor.local_endpoint().port();
            return;
        }
        throw std::runtime_error("metrics endpoint: cannot listen on " + shown(address) + ": " + ec.message());
    }

    std::shared_ptr<const std::string> latest() {
        std::lock_guard lock(mutex);
        return text;
    }
    std::shared_ptr<const std::string> latest_json() {
        std::lock_guard lock(mutex);
        return json;
    }

    http::response<http::string_body> respond(const http::request<http::string_body>& req) {
        http::response<http::string_body> res;
        res.version(req.version());
        res.keep_alive(req.keep_alive());
        res.set(http::field::server, "openloop");
        std::string_view path(req.target().data(), req.target().size());
        path = path.substr(0, path.find('?'));
        if (req.method() != http::verb::get) {
            res.result(http::status::method_not_allowed);
            res.set(http::field::allow, "GET");
            res.set(http::field::content_type, "text/plain; charset=utf-8");
            res.body() = "only GET\n";
        } else if (path == "/metrics") {
            res.result(http::status::ok);
            res.set(http::field::content_type, metrics_content_type);
            res.body() = *latest();
        } else if (path == "/live.json") {
            res.result(http::status::ok);
            res.set(http::field::content_type, "application/json");
            res.set(http::field::cache_control, "no-store");
            res.body() = *latest_json();
        } else if (path == "/") {
            res.result(http::status::ok);
            res.set(http::field::content_type, "text/html; charset=utf-8");
            res.body() = live_page_html();
        } else {
            res.result(http::status::not_found);
            res.set(http::field::content_type, "text/plain; charset=utf-8");
            res.body() = "not found: openloop serves / (the live page), /live.json and /metrics\n";
        }
        res.prepare_payload();
        return res;
    }

    // Moves a listed connection to the front: the last to be evicted.
    void touch(slot& c, std::list<slot*>::iterator at) {
        if (c.listed) connections.splice(connections.begin(), connections, at);
    }

    // The connection that has waited longest on its client (idle, sending
    // its headers slowly, or not reading its answer) is closed for a new
    // one: clients that only connect cannot lock out a scraper.
    bool evict_one() {
        if (connections.empty()) return false;
        slot* oldest = connections.back();
        connections.pop_back();
        oldest->listed = false;
        boost::system::error_code ignored;
        oldest->stream->socket().close(ignored);
        return true;
    }

    // Reads one request: its first byte within wait (a kept connection's idle
    // time, a fresh one's request time), the rest within request_timeout.
    net::awaitable<bool> read_request(tcp_stream& stream, beast::flat_buffer& buffer,
                                      http::request_parser<http::string_body>& parser,
                                      std::chrono::milliseconds wait) {
        if (buffer.size() == 0) {
            stream.expires_after(wait);
            auto [ec, n] = co_await stream.async_read_some(buffer.prepare(options.max_request_bytes));
            if (ec) co_return false;
            buffer.commit(n);
        }
        stream.expires_after(options.request_timeout);
        auto [ec, n] = co_await http::async_read(stream, buffer, parser);
        co_return !ec;  // closed, idle, slow, too large or not HTTP: nothing worth answering
    }

    net::awaitable<void> session(tcp_stream stream) {
        struct counted {
            std::size_t& n;
            ~counted() { --n; }
        } count{open_connections};
        if (stopping) co_return;
        slot self{&stream, true};
        connections.push_front(&self);
        const auto registered = connections.begin();
        beast::flat_buffer buffer(options.max_request_bytes);
        for (bool fresh = true;; fresh = false) {
            http::request_parser<http::string_body> parser;
            parser.header_limit(static_cast<std::uint32_t>(options.max_request_bytes));
            parser.body_limit(options.max_request_bytes);
            if (!co_await read_request(stream, buffer, parser, fresh ? options.request_timeout : options.idle_timeout))
                break;
            touch(self, registered);
            auto res = respond(parser.get());
            stream.expires_after(options.request_timeout);
            auto [wec, wn] = co_await http::async_write(stream, res);
            if (wec || !res.keep_alive()) break;
            touch(self, registered);
        }
        if (self.listed) connections.erase(registered);
        boost::system::error_code ignored;
        stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
        stream.close();
    }

    net::awaitable<void> accept_loop() {
        for (;;) {
            auto [ec, socket] = co_await acceptor.async_accept();
            if (ec == net::error::operation_aborted || stopping) co_return;
            if (ec) continue;  // one failed connection: keep listening
            if (open_connections >= options.max_connections && !evict_one()) {
                socket.close(ec);
                continue;
            }
            ++open_connections;
            net::co_spawn(io, session(tcp_stream(std::move(socket))), log_exception);
        }
    }

    // On the endpoint thread: ends the accept loop and every session.
    void close_all() {
        stopping = true;
        boost::system::error_code ignored;
        acceptor.close(ignored);
        for (slot* c : connections) c->stream->socket().close(ignored);
    }
};

metrics_endpoint::metrics_endpoint(const std::string& listen, metrics_endpoint_options options)
    : impl_(std::make_unique<impl>()) {
    impl_->address = parse_listen_address(listen);
    impl_->options = options;
    impl_->open();
    if (!impl_->address.loopback) {
        std::fprintf(stderr,
                     "openloop: warning: --metrics-listen %s is not loopback: anyone who can reach this host "
                     "on port %u reads the metrics\n",
                     listen.c_str(), static_cast<unsigned>(impl_->port));
    }
}

metrics_endpoint::~metrics_endpoint() { stop(); }

void metrics_endpoint::start() {
    if (impl_->started || impl_->stopped) {
        throw std::logic_error("metrics endpoint: start() after start() or stop()");
    }
    impl_->started = true;
    net::co_spawn(impl_->io, impl_->accept_loop(), log_exception);
    impl_->thread = std::thread([m = impl_.get()] {
        try {
            m->io.run();
        } catch (const std::exception& e) {
            std::fprintf(stderr, "openloop: metrics endpoint stopped: %s\n", e.what());
        }
    });
}

void metrics_endpoint::publish(std::string text, std::string live_json) {
    auto next = std::make_shared<const std::string>(std::move(text));
    auto next_json = std::make_shared<const std::string>(live_json.empty() ? std::string("{}") : std::move(live_json));
    {
        std::lock_guard lock(impl_->mutex);
        impl_->text.swap(next);
        impl_->json.swap(next_json);
    }
    // next, the text before, is freed here, outside the lock (or by the last
    // response still sending it).
}

void metrics_endpoint::stop() {
    if (impl_->stopped) return;
    impl_->stopped = true;
    if (impl_->thread.joinable()) {
        net::post(impl_->io, [m = impl_.get()] { m->close_all(); });
        impl_->thread.join();
    } else {
        impl_->close_all();
    }
}

std::uint16_t metrics_endpoint::port() const noexcept { return impl_->port; }

const listen_address& metrics_endpoint::address() const noexcept { return impl_->address; }

}  // namespace openloop
