#include "openloop/sim/http_server.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/executor.hpp"
#include "openloop/sim/completion_handler.hpp"
#include "openloop/sim/engine_runner.hpp"
#include "openloop/sim/listener.hpp"
#include "openloop/sim/metrics.hpp"
#include "openloop/sim/openai_api.hpp"
#include "openloop/sim/request_start.hpp"
#include "openloop/sim/response_writer.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

class http_server::impl {
public:
    impl(net::io_context& io, sim_config cfg)
        : io_(io),
          cfg_(std::move(cfg)),
          runner_(io, cfg_.model, cfg_.misbehaviour),
          tls_(server_tls_context(cfg_)) {}

    void start() {
        tcp_acceptor acceptor = open_listener(io_, cfg_);
        const auto port = acceptor.local_endpoint().port();
        std::printf("openloop-sim listening on %s://%s:%u\n", tls_ ? "https" : "http",
                    acceptor.local_endpoint().address().is_v6() ? ("[" + cfg_.host + "]").c_str() : cfg_.host.c_str(),
                    unsigned(port));
        std::fflush(stdout);
        std::function<void(tcp_socket)> serve = [this](tcp_socket socket) { serve_connection(std::move(socket)); };
        net::co_spawn(io_, accept_loop(std::move(acceptor), counters_, std::move(serve)), rethrow);
        if (!cfg_.model.firehose) runner_.start();
    }

    void flush_log() { completions_.flush_log(); }

private:
    static void rethrow(std::exception_ptr e) {
        if (e) std::rethrow_exception(e);
    }
    static void report(std::exception_ptr e) {
        if (!e) return;
        try {
            std::rethrow_exception(e);
        } catch (const std::exception& ex) {
            std::fprintf(stderr, "openloop sim: connection error: %s\n", ex.what());
        }
    }

    void serve_connection(tcp_socket socket) {
        if (tls_) {
            net::co_spawn(io_, session(tls_stream(std::move(socket), *tls_)), report);
        } else {
            net::co_spawn(io_, session(tcp_stream(std::move(socket))), report);
        }
    }

    template <class Stream>
    net::awaitable<void> session(Stream stream) {
        if constexpr (!std::is_same_v<Stream, tcp_stream>) {
            sim_io::tcp_of(stream).expires_after(std::chrono::seconds(30));
            auto [ec] = co_await stream.async_handshake(ssl::stream_base::server);
            if (ec) co_return;
        }
        beast::flat_buffer buffer;
        auto idle_since = std::chrono::steady_clock::now();
        for (int served = 0;;) {
            // Idle until the first byte of the next request, under the
            // keep-alive timeout; the rest of the request gets the read timeout.
            // A pipelined request's bytes were there before: it starts now.
            std::int64_t first_byte_ns = steady_now_ns();
            if (buffer.size() == 0) {
                request_start start;
                if constexpr (std::is_same_v<Stream, tcp_stream>) {
                    sim_io::tcp_of(stream).expires_never();
                    start = co_await read_request_start(stream, buffer.prepare(4096), cfg_.keep_alive_timeout);
                } else {
                    if (cfg_.keep_alive_timeout.count() > 0) {
                        sim_io::tcp_of(stream).expires_after(cfg_.keep_alive_timeout);
                    } else {
                        sim_io::tcp_of(stream).expires_never();
                    }
                    std::tie(start.ec, start.bytes) = co_await stream.async_read_some(buffer.prepare(4096));
                    start.at_ns = steady_now_ns();
                }
                if (start.ec == beast::error::timeout) {
                    // The expiry closed the socket: a plain close, TLS or not,
                    // so the client's next write meets a reset.
                    ++counters_.idle_closes;
                    co_return;
                }
                if (start.ec) break;
                first_byte_ns = start.at_ns;
                buffer.commit(start.bytes);
                if (cfg_.quirks.close_stale && std::chrono::steady_clock::now() - idle_since > std::chrono::seconds(1)) {
                    ++counters_.stale_drops;
                    co_return;  // closed with the request unread, as at the instant of an idle close
                }
            }
            http::request_parser<http::string_body> parser;
            parser.body_limit(cfg_.max_request_bytes);
            sim_io::tcp_of(stream).expires_after(std::chrono::minutes(5));
            auto [ec, n] = co_await http::async_read(stream, buffer, parser);
            if (ec) break;
            sim_io::tcp_of(stream).expires_never();
            auto req = parser.release();
            // The connection's last request: as one that is not keep-alive, every
            // response path answers it with Connection: close, and the loop ends.
            if (cfg_.keep_alive_max_requests > 0 && ++served == cfg_.keep_alive_max_requests && req.keep_alive()) {
                req.keep_alive(false);
                ++counters_.max_requests_closes;
            }
            const bool keep = co_await handle(stream, req, first_byte_ns);
            if (!keep || !req.keep_alive()) break;
            idle_since = std::chrono::steady_clock::now();
            if (cfg_.quirks.close_after_completion && req.method() == http::verb::post &&
                req.target().ends_with("completions")) {
                ++counters_.completion_closes;
                break;
            }
        }
        if constexpr (std::is_same_v<Stream, tcp_stream>) {
            boost::system::error_code ec;
            stream.socket().shutdown(tcp::socket::shutdown_send, ec);
        } else {
            sim_io::tcp_of(stream).expires_after(std::chrono::seconds(5));
            co_await stream.async_shutdown();
        }
    }

    template <class Stream>
    net::awaitable<bool> handle(Stream& stream, const http::request<http::string_body>& req, std::int64_t first_byte_ns) {
        const std::string_view target(req.target().data(), req.target().size());
        const std::string_view path = target.substr(0, target.find('?'));
        const bool get = req.method() == http::verb::get;
        const bool post = req.method() == http::verb::post;
        if (path == "/v1/chat/completions" || path == "/v1/completions" || path == "/v1/responses" ||
            path == "/v1/audio/transcriptions") {
            if (!post) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            co_return co_await completions_.complete(stream, req, path, first_byte_ns);
        }
        if (path == "/v1/embeddings") {
            if (!post) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            co_return co_await completions_.embed(stream, req, first_byte_ns);
        }
        if (path == "/tokenize" && cfg_.tokenize_endpoint) {
            if (!post) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            auto [status, body] = tokenize_response(req.body(), cfg_);
            co_return co_await sim_io::send(stream, req, status, std::move(body));
        }
        if (path == "/health" || path == "/v1/models" || path == "/metrics") {
            if (!get) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            if (path == "/health") co_return co_await sim_io::send(stream, req, http::status::ok, "", "text/plain");
            if (path == "/metrics")
                co_return co_await sim_io::send(stream, req, http::status::ok,
                                        metrics_text(counters_, runner_.engine_state(), completions_.model_json(), cfg_.lora_modules),
                                        "text/plain; version=0.0.4; charset=utf-8");
            co_return co_await sim_io::send(stream, req, http::status::ok, models_response(cfg_, completions_.started_unix()));
        }
        co_return co_await sim_io::send(stream, req, http::status::not_found, R"({"detail":"Not Found"})");
    }

    net::io_context& io_;
    sim_config cfg_;
    engine_runner runner_;
    sim_counters counters_;
    completion_handler completions_{cfg_, runner_, counters_};
    std::optional<ssl::context> tls_;
};

http_server::http_server(net::io_context& io, sim_config cfg) : impl_(std::make_unique<impl>(io, std::move(cfg))) {}
http_server::~http_server() = default;
void http_server::start() { impl_->start(); }
void http_server::flush_log() { impl_->flush_log(); }

}  // namespace openloop
