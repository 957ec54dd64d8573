#include "openloop/wire/client.hpp"

#include "openloop/wire/chunk.hpp"
#include "openloop/measure/clock.hpp"
#include "openloop/wire/sse.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <charconv>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include <cerrno>
#include <sys/socket.h>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;
using steady = std::chrono::steady_clock;

namespace {

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);

bool is_ip_literal(const std::string& host) {
    boost::system::error_code ec;
    net::ip::make_address(host, ec);
    return !ec;
}

}  // namespace

std::string target_url::display() const {
    const bool v6 = host.find(':') != std::string::npos;
    return std::string(tls ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" + port + base_path;
}

target_url parse_target_url(std::string_view url) {
    target_url t;
    const auto fail = [&](const std::string& why) {
        return std::invalid_argument("--target '" + std::string(url) + "': " + why);
    };
    std::string_view rest;
    if (url.rfind("http://", 0) == 0) {
        rest = url.substr(7);
    } else if (url.rfind("https://", 0) == 0) {
        t.tls = true;
        rest = url.substr(8);
    } else {
        throw fail("expected http://HOST[:PORT][/PATH], https://..., or sim:PRESET");
    }
    const auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
    if (authority.find('@') != std::string_view::npos)
        throw fail("credentials in the URL are not supported; use --header or the API key variable");
    if (authority.empty()) throw fail("missing host");
    std::string_view port;
    if (authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) throw fail("unterminated IPv6 address");
        t.host = std::string(authority.substr(1, close - 1));
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw fail("unexpected text after the IPv6 address");
            port = authority.substr(close + 2);
        }
    } else {
        const auto colon = authority.rfind(':');
        t.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (t.host.empty()) throw fail("missing host");
    if (!port.empty()) {
        unsigned p = 0;
        auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
        if (ec != std::errc() || end != port.data() + port.size() || p == 0 || p > 65535)
            throw fail("bad port '" + std::string(port) + "'");
        t.port = std::string(port);
    } else {
        t.port = t.tls ? "443" : "80";
    }
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (path.find_first_of("?#") != std::string_view::npos) throw fail("a query or fragment is not allowed");
    t.base_path = std::string(path);
    const bool default_port = t.port == (t.tls ? "443" : "80");
    const std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
    t.host_header = default_port ? host : host + ":" + t.port;
    return t;
}

std::string build_http_request(const client_options& o, std::string_view request_id, std::string_view json_body) {
    std::string s;
    s.reserve(json_body.size() + 256);
    s.append("POST ").append(o.path).append(" HTTP/1.1\r\nHost: ").append(o.target.host_header);
    s.append("\r\nUser-Agent: openloop/" OPENLOOP_VERSION "\r\nAccept: text/event-stream\r\n");
    s.append("Content-Type: application/json\r\nx-request-id: ").append(request_id).append("\r\n");
    for (const auto& [k, v] : o.headers) s.append(k).append(": ").append(v).append("\r\n");
    s.append("Content-Length: ").append(std::to_string(json_body.size())).append("\r\n\r\n");
    s.append(json_body);
    return s;
}

struct client::connection {
    std::optional<beast::tcp_stream> tcp;
    std::optional<beast::ssl_stream<beast::tcp_stream>> tls;
    beast::flat_buffer buffer;
    std::int64_t idle_since_ns = 0;  // when it last went back into the pool
    bool served = false;             // answered a request: the server chose to keep it open

    beast::tcp_stream& lowest() { return tls ? beast::get_lowest_layer(*tls) : *tcp; }

    // True when the peer has closed (FIN or RST) or, on plain HTTP, sent bytes
    // no request asked for (a 408 before closing): not a connection to write
    // on. A non-blocking peek, so it costs one syscall and never waits. TLS
    // may hold post-handshake messages (session tickets), so bytes alone do
    // not condemn it.
    bool peer_gone() {
        char byte;
        const ssize_t n = ::recv(lowest().socket().native_handle(), &byte, 1, MSG_PEEK | MSG_DONTWAIT);
        if (n == 0) return true;
        if (n > 0) return !tls;
        return errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR;
    }
};

struct client::impl {
    net::io_context& io;
    client_options opt;
    std::optional<ssl::context> tls;
    tcp::resolver::results_type endpoints;
    std::vector<std::unique_ptr<connection>> idle;  // most recently used at the back
    std::unordered_set<connection*> busy;
    std::size_t opening = 0;
    bool closing = false;
    // Some servers close every connection right after a streamed answer,
    // whatever their Keep-Alive header says (llama.cpp's llama-server does).
    // Seen a few times and never contradicted by a successful reuse, such
    // connections stop going back into the pool, so no request races a FIN.
    bool reuse = true;
    int closed_after_answer = 0;
    int reused_ok = 0;
    net::steady_timer refresh;
    chunk_decoder decoder;  // decode() keeps no state between calls: one serves every request

    impl(net::io_context& io_, client_options o) : io(io_), opt(std::move(o)), refresh(io_) {}

    // A new connection: TCP connect, then the TLS handshake where configured.
    net::awaitable<std::unique_ptr<connection>> open(error_class& cls) {
        auto c = std::make_unique<connection>();
        if (tls) {
            c->tls.emplace(io, *tls);
        } else {
            c->tcp.emplace(io);
        }
        auto& low = c->lowest();
        low.expires_after(opt.connect_timeout);
        auto [ec, ep] = co_await low.async_connect(endpoints, use_tuple);
        if (ec) {
            cls = ec == beast::error::timeout ? error_class::timeout_connect : error_class::connect;
            co_return nullptr;
        }
        boost::system::error_code ignored;
        low.socket().set_option(tcp::no_delay(true), ignored);
        if (c->tls) {
            if (!is_ip_literal(opt.target.host))
                SSL_set_tlsext_host_name(c->tls->native_handle(), opt.target.host.c_str());
            if (!opt.insecure) c->tls->set_verify_callback(ssl::host_name_verification(opt.target.host));
            auto [hec] = co_await c->tls->async_handshake(ssl::stream_base::client, use_tuple);
            if (hec) {
                cls = hec == beast::error::timeout ? error_class::timeout_connect : error_class::tls;
                co_return nullptr;
            }
        }
        low.expires_never();
        co_return c;
    }

    net::awaitable<void> open_one() {
        ++opening;
        error_class cls{};
        auto c = co_await open(cls);
        --opening;
        if (c && !closing) put_idle(std::move(c));
    }

    void put_idle(std::unique_ptr<connection> c) {
        c->idle_since_ns = steady_now_ns();
        idle.push_back(std::move(c));
    }

    bool stale(const connection& c, std::int64_t now) const {
        return opt.keep_alive_idle.count() > 0 &&
               now - c.idle_since_ns > std::chrono::nanoseconds(opt.keep_alive_idle).count();
    }

    // The freshest pooled connection that is still within its idle budget
    // and still open, or null; the ones it passes over are closed.
    std::unique_ptr<connection> take_idle() {
        const std::int64_t now = steady_now_ns();
        while (!idle.empty()) {
            auto c = std::move(idle.back());
            idle.pop_back();
            if (stale(*c, now)) {
                close(*c);
                continue;
            }
            if (!c->peer_gone()) return c;
            if (c->served && now - c->idle_since_ns < 1'000'000'000 && ++closed_after_answer >= 3 && reused_ok == 0)
                reuse = false;
            close(*c);
        }
        return nullptr;
    }

    void keep_spares() {
        while (!closing && idle.size() + opening < opt.spare_connections)
            net::co_spawn(io, open_one(), net::detached);
    }

    // Closes pooled connections past their idle budget and opens fresh
    // spares in their place, so that a quiet spell does not leave the next
    // send with only connections the server is about to close.
    void schedule_refresh() {
        if (closing || opt.keep_alive_idle.count() <= 0) return;
        refresh.expires_after(std::max(opt.keep_alive_idle / 4, std::chrono::milliseconds(10)));
        refresh.async_wait([this](const boost::system::error_code& ec) {
            if (ec || closing) return;
            const std::int64_t now = steady_now_ns();
            std::erase_if(idle, [&](const std::unique_ptr<connection>& c) {
                if (!stale(*c, now)) return false;
                close(*c);
                return true;
            });
            keep_spares();
            schedule_refresh();
        });
    }

    void close(connection& c) {
        boost::system::error_code ignored;
        c.lowest().socket().close(ignored);
    }

    // A setup call on a connection of its own: the status and body of any
    // answer, or an exception naming the call when there was none.
    net::awaitable<std::pair<int, std::string>> setup_call(http::verb verb, std::string path, std::string json_body) {
        const std::string what = std::string(http::to_string(verb)) + " " + path;
        error_class cls{};
        auto c = co_await open(cls);
        if (!c) throw std::runtime_error(what + ": " + std::string(error_class_name(cls)) + " error");
        http::request<http::string_body> req{verb, path, 11};
        req.set(http::field::host, opt.target.host_header);
        req.set(http::field::user_agent, "openloop/" OPENLOOP_VERSION);
        if (verb == http::verb::post) req.set(http::field::content_type, "application/json");
        for (const auto& [k, v] : opt.headers) req.set(k, v);
        req.body() = std::move(json_body);
        req.prepare_payload();
        co_return co_await setup_exchange(*c, req);
    }

    // One request and its whole answer, for setup calls.
    template <class Request>
    static net::awaitable<std::pair<int, std::string>> setup_exchange(connection& c, Request& req) {
        http::response<http::string_body> res;
        boost::system::error_code ec;
        c.lowest().expires_after(std::chrono::seconds(30));
        if (c.tls) {
            std::tie(ec, std::ignore) = co_await http::async_write(*c.tls, req, use_tuple);
            if (!ec) std::tie(ec, std::ignore) = co_await http::async_read(*c.tls, c.buffer, res, use_tuple);
        } else {
            std::tie(ec, std::ignore) = co_await http::async_write(*c.tcp, req, use_tuple);
            if (!ec) std::tie(ec, std::ignore) = co_await http::async_read(*c.tcp, c.buffer, res, use_tuple);
        }
        if (ec) throw std::runtime_error(std::string(req.method_string()) + " " + std::string(req.target()) + ": " + ec.message());
        co_return std::pair<int, std::string>{static_cast<int>(res.result_int()), std::move(res.body())};
    }
};

client::client(net::io_context& io, client_options options, spsc_ring<event>& ring)
    : impl_(std::make_unique<impl>(io, std::move(options))), ring_(ring) {}

client::~client() = default;

void client::setup() {
    auto& o = impl_->opt;
    if (o.target.tls) {
        impl_->tls.emplace(ssl::context::tls_client);
        auto& ctx = *impl_->tls;
        boost::system::error_code ec;
        if (o.insecure) {
            ctx.set_verify_mode(ssl::verify_none);
        } else {
            ctx.set_verify_mode(ssl::verify_peer);
            if (!o.ca_file.empty()) {
                ctx.load_verify_file(o.ca_file, ec);
                if (ec) throw std::runtime_error("--ca-file " + o.ca_file + ": " + ec.message());
            } else {
                ctx.set_default_verify_paths(ec);
                if (ec) throw std::runtime_error("cannot load the system CA certificates: " + ec.message());
            }
        }
    }
    tcp::resolver resolver(impl_->io);
    boost::system::error_code ec;
    impl_->endpoints = resolver.resolve(o.target.host, o.target.port, ec);
    if (ec) throw std::runtime_error("cannot resolve " + o.target.host + ":" + o.target.port + ": " + ec.message());
}

net::awaitable<void> client::open_spare(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) co_await impl_->open_one();
    impl_->schedule_refresh();
}

void client::emit(const event& e) noexcept {
    if (!ring_.try_push(e)) lost_.fetch_add(1, std::memory_order_relaxed);
}

void client::close_all() {
    impl_->closing = true;
    impl_->refresh.cancel();
    for (auto* c : impl_->busy) impl_->close(*c);
    impl_->idle.clear();
}

net::awaitable<std::string> client::get(std::string path) {
    auto [status, body] = co_await impl_->setup_call(http::verb::get, path, {});
    if (status != 200) throw std::runtime_error("GET " + path + ": HTTP " + std::to_string(status));
    co_return body;
}

net::awaitable<std::pair<int, std::string>> client::post(std::string path, std::string json_body) {
    co_return co_await impl_->setup_call(http::verb::post, std::move(path), std::move(json_body));
}

namespace {

// What reading one response produced, beyond the events already pushed.
struct exchange_result {
    error_class failure = error_class::none;
    int status = 0;
    bool reusable = false;
    bool nothing_received = false;  // the connection died before any response byte: safe to retry
};

// Timeouts in force for one read: which one fires decides the error class.
struct deadlines {
    std::optional<steady::time_point> first_token, total;
    std::chrono::milliseconds idle{0};

    std::pair<std::optional<steady::time_point>, error_class> next(bool streaming) const {
        std::optional<steady::time_point> at;
        error_class cls = error_class::io;
        auto consider = [&](std::optional<steady::time_point> t, error_class c) {
            if (t && (!at || *t < *at)) {
                at = t;
                cls = c;
            }
        };
        if (!streaming) consider(first_token, error_class::timeout_first_token);
        if (streaming && idle.count() > 0) consider(steady::now() + idle, error_class::timeout_idle);
        consider(total, error_class::timeout_total);
        return {at, cls};
    }
};

error_class classify(const boost::system::error_code& ec, error_class timeout_cls, bool cancelled) {
    if (cancelled || ec == net::error::operation_aborted) return error_class::cancelled;
    if (ec == beast::error::timeout) return timeout_cls;
    if (ec == http::error::body_limit) return error_class::body_too_large;
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::broken_pipe || ec == ssl::error::stream_truncated)
        return error_class::stream_truncated;
    return error_class::io;
}

template <class Stream>
net::awaitable<exchange_result> exchange(Stream& stream, beast::tcp_stream& low, beast::flat_buffer& buffer,
                                         const deadlines& dl, std::size_t max_body, std::uint64_t index,
                                         client& cl, chunk_decoder& decoder, const bool& cancelled) {
    exchange_result out;
    auto arm = [&](bool streaming) {
        auto [at, cls] = dl.next(streaming);
        if (at) {
            low.expires_at(*at);
        } else {
            low.expires_never();
        }
        return cls;
    };

    http::response_parser<http::buffer_body> parser;
    parser.body_limit(max_body);
    error_class timeout_cls = arm(false);
    auto [hec, hn] = co_await http::async_read_header(stream, buffer, parser, use_tuple);
    if (hec) {
        out.nothing_received = hn == 0 && (hec == http::error::end_of_stream || hec == net::error::connection_reset ||
                                           hec == net::error::eof || hec == net::error::broken_pipe ||
                                           hec == ssl::error::stream_truncated);
        out.failure = classify(hec, timeout_cls, cancelled);
        co_return out;
    }
    out.status = static_cast<int>(parser.get().result_int());
    cl.emit(event{steady_now_ns(), 0, index, out.status, 0, event_kind::headers});

    sse_parser sse;
    // Per request, since reads of many requests are pending at once; SSE
    // events are small, so a few KiB per read is plenty.
    char scratch[4096];
    bool streaming = false;      // a content chunk arrived: the idle timeout applies from now on
    bool continuous = true;      // usage came with every content chunk so far: its deltas count tokens
    std::int64_t last_completion = 0;
    std::int64_t usage_completion = -1, usage_prompt = -1, usage_cached = -1;
    bool saw_done = false;
    std::int64_t done_ns = 0;
    error_class stream_failure = error_class::none;
    const bool ok_status = out.status == 200;

    while (!parser.is_done()) {
        parser.get().body().data = scratch;
        parser.get().body().size = sizeof scratch;
        timeout_cls = arm(streaming);
        auto [ec, n] = co_await http::async_read_some(stream, buffer, parser, use_tuple);
        const std::int64_t t = steady_now_ns();
        if (ec == http::error::need_buffer) ec = {};
        const std::size_t got = sizeof scratch - parser.get().body().size;
        if (ok_status && got > 0 && stream_failure == error_class::none) {
            sse.feed(std::string_view(scratch, got), [&](std::string_view data) {
                if (stream_failure != error_class::none || saw_done) return;
                const chunk_info info = decoder.decode(data);
                if (info.has_usage) {
                    usage_completion = info.completion_tokens;
                    usage_prompt = info.prompt_tokens;
                    usage_cached = info.cached_tokens;
                }
                switch (info.kind) {
                case chunk_kind::content: {
                    int tokens = -1;
                    if (continuous && info.has_usage && info.completion_tokens > last_completion) {
                        tokens = static_cast<int>(info.completion_tokens - last_completion);
                        last_completion = info.completion_tokens;
                    } else {
                        continuous = false;
                    }
                    streaming = true;
                    cl.emit(event{t, 0, index, tokens, static_cast<std::int32_t>(info.content_chars),
                                  event_kind::chunk});
                    break;
                }
                case chunk_kind::done:
                    saw_done = true;
                    done_ns = t;
                    break;
                case chunk_kind::error: stream_failure = error_class::server_error; break;
                case chunk_kind::malformed: stream_failure = error_class::bad_chunk; break;
                default: break;
                }
            });
            if (sse.error() != sse_error::none) stream_failure = error_class::bad_chunk;
        }
        if (ec) {
            // After [DONE] the stream has said everything; a torn connection is not a failed request.
            if (saw_done && ok_status && stream_failure == error_class::none) break;
            out.failure = classify(ec, timeout_cls, cancelled);
            co_return out;
        }
        if (stream_failure != error_class::none) {
            out.failure = stream_failure;
            co_return out;
        }
        // Servers that never send [DONE] end the stream with the body.
        if (parser.is_done() && !saw_done) done_ns = t;
    }
    if (!ok_status) {
        out.failure = out.status >= 500 ? error_class::http_5xx : error_class::http_4xx;
        out.reusable = parser.is_done() && parser.keep_alive();
        co_return out;
    }
    out.reusable = parser.is_done() && parser.keep_alive();
    cl.emit(event{done_ns, usage_cached, index, static_cast<std::int32_t>(usage_completion),
                  static_cast<std::int32_t>(usage_prompt), event_kind::done});
    co_return out;
}

}  // namespace

net::awaitable<void> client::run(std::uint64_t index, const prepared_request& req, std::int64_t intended_ns,
                                 std::int64_t flags) {
    auto& im = *impl_;
    emit(event{intended_ns, flags, index, req.input_tokens, req.max_tokens, event_kind::start});
    ++in_flight_;
    const bool& cancelled = im.closing;
    bool sent = false;
    deadlines dl;
    dl.idle = im.opt.idle_timeout;
    exchange_result result;

    // A pooled connection (a spare, or one that served a request before) may
    // have been closed by the server as the request went out: a request that
    // received nothing at all on one goes again, once, on a fresh connection.
    // Its clock still runs from the intended time.
    bool retried = false;
    for (;;) {
        std::unique_ptr<connection> c = retried ? nullptr : im.take_idle();
        const bool pooled = c != nullptr;
        if (!c) {
            error_class cls{};
            const std::int64_t t0 = steady_now_ns();
            c = co_await im.open(cls);
            if (!c) {
                result = {};
                result.failure = cancelled ? error_class::cancelled : cls;
                break;
            }
            const std::int64_t t1 = steady_now_ns();
            emit(event{t1, t1 - t0, index, 0, 0, event_kind::connect});
        }
        im.keep_spares();
        im.busy.insert(c.get());
        if (!sent) {
            sent = true;
            emit(event{steady_now_ns(), 0, index, 0, 0, event_kind::sent});
            const auto start = steady::now();
            if (im.opt.first_token_timeout.count() > 0) dl.first_token = start + im.opt.first_token_timeout;
            if (im.opt.total_timeout.count() > 0) dl.total = start + im.opt.total_timeout;
        }
        auto& low = c->lowest();
        if (dl.total) {
            low.expires_at(*dl.total);
        } else {
            low.expires_never();
        }
        boost::system::error_code wec;
        if (c->tls) {
            std::tie(wec, std::ignore) = co_await net::async_write(*c->tls, net::buffer(req.bytes), use_tuple);
        } else {
            std::tie(wec, std::ignore) = co_await net::async_write(*c->tcp, net::buffer(req.bytes), use_tuple);
        }
        if (wec) {
            result = {};
            result.failure = classify(wec, error_class::timeout_total, cancelled);
            result.nothing_received = true;
        } else if (c->tls) {
            result = co_await exchange(*c->tls, low, c->buffer, dl, im.opt.max_body, index, *this, im.decoder, cancelled);
        } else {
            result = co_await exchange(*c->tcp, low, c->buffer, dl, im.opt.max_body, index, *this, im.decoder, cancelled);
        }
        im.busy.erase(c.get());
        const bool retryable = result.nothing_received && result.failure != error_class::timeout_total &&
                               result.failure != error_class::cancelled;
        if (result.failure != error_class::none && retryable && pooled && !retried && !cancelled) {
            emit(event{steady_now_ns(), 0, index, static_cast<std::int32_t>(result.failure), 0, event_kind::retry});
            retried = true;
            continue;
        }
        if (result.failure == error_class::none && pooled && c->served) ++im.reused_ok;
        if (result.reusable && !im.closing && im.reuse) {
            c->served = true;
            c->lowest().expires_never();
            im.put_idle(std::move(c));
        }
        break;
    }
    if (result.failure != error_class::none)
        emit(event{steady_now_ns(), 0, index, static_cast<std::int32_t>(result.failure), result.status, event_kind::failed});
    --in_flight_;
}

}  // namespace openloop
