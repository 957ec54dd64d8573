#include "openloop/sim/http_server.hpp"

#include "openloop/base/executor.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/base/clock.hpp"
#include "openloop/sim/engine_runner.hpp"
#include "openloop/sim/event_writer.hpp"
#include "openloop/sim/listener.hpp"
#include "openloop/sim/metrics.hpp"
#include "openloop/sim/openai_api.hpp"
#include "openloop/sim/request_log.hpp"
#include "openloop/sim/request_start.hpp"
#include "openloop/sim/response_writer.hpp"
#include "openloop/sim/responses_writer.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
namespace json = boost::json;
using tcp = net::ip::tcp;

class http_server::impl {
public:
    impl(net::io_context& io, sim_config cfg)
        : io_(io),
          cfg_(std::move(cfg)),
          runner_(io, cfg_.model, cfg_.misbehaviour),
          leaks_(cfg_.misbehaviour.leak_limit_bytes),
          log_(cfg_.log_path),
          tls_(server_tls_context(cfg_)) {
        model_json_ = json::serialize(json::value(cfg_.served_model_name));
    }

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

    void flush_log() { log_.flush(); }

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
        if (path == "/v1/chat/completions" || path == "/v1/completions" || path == "/v1/responses") {
            if (!post) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            co_return co_await complete(stream, req, path, first_byte_ns);
        }
        if (path == "/v1/embeddings") {
            if (!post) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            co_return co_await embed(stream, req, first_byte_ns);
        }
        if (path == "/tokenize") {
            if (!post) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            auto [status, body] = tokenize_response(req.body(), cfg_);
            co_return co_await sim_io::send(stream, req, status, std::move(body));
        }
        if (path == "/health" || path == "/v1/models" || path == "/metrics") {
            if (!get) co_return co_await sim_io::send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            if (path == "/health") co_return co_await sim_io::send(stream, req, http::status::ok, "", "text/plain");
            if (path == "/metrics")
                co_return co_await sim_io::send(stream, req, http::status::ok,
                                        metrics_text(counters_, runner_.engine_state(), model_json_),
                                        "text/plain; version=0.0.4; charset=utf-8");
            co_return co_await sim_io::send(stream, req, http::status::ok, models_response(cfg_, started_unix_));
        }
        co_return co_await sim_io::send(stream, req, http::status::not_found, R"({"detail":"Not Found"})");
    }

    template <class Stream>
    net::awaitable<bool> complete(Stream& stream, const http::request<http::string_body>& req, std::string_view path,
                                  std::int64_t first_byte_ns) {
        const bool chat = path == "/v1/chat/completions";
        const bool responses = path == "/v1/responses";
        log_record rec;
        rec.first_byte_ns = first_byte_ns;
        rec.arrival_ns = steady_now_ns();
        rec.endpoint = responses ? "/v1/responses" : chat ? "/v1/chat/completions" : "/v1/completions";
        if (auto id = req.find("x-request-id"); id != req.end()) rec.request_id = std::string(id->value());
        rec.body_bytes = req.body().size();

        completion_request r;
        if (auto err = responses ? parse_responses(req.body(), cfg_, r) : parse_completion(req.body(), chat, cfg_, r)) {
            if (cfg_.quirks.error_500 && err->status == http::status::bad_request) {
                err->status = http::status::internal_server_error;
                err->type = "InternalServerError";
            }
            rec.status = static_cast<int>(err->status);
            rec.outcome = "rejected";
            rec.end_ns = steady_now_ns();
            log_.write(rec);
            co_return co_await sim_io::send(stream, req, err->status, error_body(*err));
        }
        // One allocation per request on the io thread: a test server's leak, not a hot path.
        leaks_.leak(cfg_.misbehaviour.leak_bytes_per_request);
        counters_.leaked_bytes = leaks_.bytes();
        counters_.leak_refusals = leaks_.refused();
        const auto& quirks = cfg_.quirks;
        if (quirks.html_200)
            co_return co_await sim_io::send(stream, req, http::status::ok,
                                    "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to continue"
                                    "</body></html>\n",
                                    "text/html; charset=utf-8");
        if (quirks.ignore_stream) r.stream = false;
        if (quirks.ignore_stream_options) r.include_usage = r.continuous_usage = false;
        if (quirks.always_usage) r.include_usage = true;
        rec.stream = r.stream;
        rec.prompt_tokens = r.prompt_tokens;
        const std::uint64_t index = completion_index_++;
        const fault f = pick_fault(cfg_.faults, cfg_.seed, index);
        rec.injected = f;
        ++counters_.faults[static_cast<int>(f)];

        if (f == fault::slow_first_byte) co_await sim_io::sleep_ms(stream, cfg_.faults.slow_first_byte_ms);
        if (const std::optional<api_error> injected = injected_error(f)) {
            const api_error& e = *injected;
            rec.status = static_cast<int>(e.status);
            rec.outcome = "fault";
            rec.end_ns = steady_now_ns();
            log_.write(rec);
            co_return co_await sim_io::send(stream, req, e.status, error_body(e), "application/json",
                                    f == fault::http_429 ? cfg_.faults.retry_after_s : -1);
        }

        // Greedy sampling without a seed is a function of the prompt; anything else of the request.
        std::uint64_t prompt_hash = 1;
        for (auto t : r.token_ids) prompt_hash = mix64(prompt_hash ^ t);
        const std::uint64_t h = r.seed ? mix64(static_cast<std::uint64_t>(*r.seed) ^ 0x5eedULL)
                              : r.temperature == 0.0 ? prompt_hash
                                                     : mix64(cfg_.seed ^ mix64(index));
        const int n = output_length(r, h);
        const bool length = r.ignore_eos || n == r.max_tokens;
        const std::string_view finish = length ? "length" : "stop";
        const std::int64_t created = started_unix_ + (rec.arrival_ns - started_ns_) / 1'000'000'000;

        responses_writer rw;
        if (responses) {
            rw.id = "resp_" + std::to_string(mix64(h ^ index) >> 16);
            rw.item_id = "msg_" + std::to_string(mix64(h ^ ~index) >> 16);
            rw.model_json = model_json_;
            rw.created_unix = created;
            rw.prompt_tokens = r.prompt_tokens;
        }
        event_writer w;
        w.chat = chat;
        w.continuous_usage = r.continuous_usage;
        if (quirks.absurd_usage) w.absurd_completion = 2147483647;
        w.prompt_tokens = r.prompt_tokens;
        w.word_state = h;
        {
            std::string id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(mix64(h ^ index) >> 16);
            w.head = R"({"id":")" + id + R"(","object":")" + (chat ? "chat.completion.chunk" : "text_completion") +
                     R"(","created":)" + std::to_string(created) +
                     R"(,"model":)" + model_json_ + R"(,"choices":)";
        }

        live_request lr(stream.get_executor());
        const std::uint64_t id = next_id_++;
        const bool fh = cfg_.model.firehose;
        if (fh) {
            counters_.prompt_tokens += r.prompt_tokens;
            ++counters_.streams;
        } else {
            runner_.add(lr, seq_request{id, r.prompt_tokens, n, block_hashes(r.token_ids, cfg_.model.block_size)});
        }
        bool ok = true;
        int sent = 0;
        std::string buf, frame;
        const int per_event = std::max(1, cfg_.model.tokens_per_step);
        const int half = n / 2;
        bool stalled = false, corrupted = false;
        if (r.stream) {
            ok = co_await sim_io::write_stream_head(stream, req);
            if (ok) {
                if (responses) rw.opening(buf);
                // Azure-style filter results come first, as a chunk with no choices.
                if (!responses && quirks.empty_choices_chunk) w.empty_choices(buf);
                if (chat && !responses && !quirks.no_role_chunk) w.role(buf);
                if (!buf.empty()) ok = co_await sim_io::write_chunk(stream, frame, buf);
            }
            while (ok && sent < n) {
                int avail = n - sent;
                if (!fh) {
                    while (lr.ready == 0) co_await lr.wake.async_wait();
                    avail = lr.ready;
                    lr.ready = 0;
                }
                buf.clear();
                // The tokens of one engine step go out as one event; firehose
                // coalesces up to 16 ready events into one write.
                for (int events = 0; avail > 0 && events < (fh ? 16 : 1); ++events) {
                    const int k = fh ? std::min(per_event, avail) : avail;
                    if (f == fault::disconnect && sent + k > half) {
                        rec.outcome = "fault";
                        ok = false;
                        break;
                    }
                    if (f == fault::bad_chunk && !corrupted && sent + k > half) {
                        if (responses) rw.malformed(buf);
                        if (!responses) w.malformed(buf);
                        corrupted = true;
                    }
                    if (f == fault::stall && !stalled && sent >= half && sent > 0) {
                        stalled = true;
                        if (!buf.empty() && !(co_await sim_io::write_chunk(stream, frame, buf))) {
                            ok = false;
                            break;
                        }
                        buf.clear();
                        co_await sim_io::sleep_ms(stream, cfg_.faults.stall_ms);
                    }
                    sent += k;
                    avail -= k;
                    if (quirks.keepalive_comments) buf.append(": keep-alive\n\n");
                    const bool last = sent == n;
                    w.cached_tokens = lr.cached_tokens;
                    if (responses) {
                        rw.delta(buf, w, k);
                    } else {
                        w.content(buf, k, sent, last ? finish : std::string_view{},
                                  last && r.include_usage && quirks.usage_in_last_chunk);
                    }
                }
                if (!ok) break;
                // Stamped as the bytes are handed to the socket: the client cannot see them earlier.
                const auto t = steady_now_ns();
                if (!buf.empty()) ok = co_await sim_io::write_chunk(stream, frame, buf);
                if (!ok) {
                    rec.outcome = "client_closed";
                    break;
                }
                if (rec.first_token_ns < 0) rec.first_token_ns = t;
                rec.last_token_ns = t;
                // Let other connections write between our batches of events.
                if (fh && sent < n) co_await net::post(stream.get_executor(), net::use_awaitable);
            }
            if (ok) {
                buf.clear();
                w.cached_tokens = rw.cached_tokens = lr.cached_tokens;
                // A Responses stream has no [DONE]: response.completed, with the usage, is its end.
                if (responses) rw.closing(buf, generated_words(h, sent), sent, length);
                if (!responses && r.include_usage && !quirks.usage_in_last_chunk) w.final_usage(buf, sent);
                if (!responses && !quirks.no_done) buf.append("data: [DONE]\n\n");
                if (!buf.empty()) ok = co_await sim_io::write_chunk(stream, frame, buf);
                if (ok) ok = co_await sim_io::write_all(stream, "0\r\n\r\n");
                if (!ok) rec.outcome = "client_closed";
            }
        } else {
            // A client that hangs up while its answer is decoded frees its slot,
            // as a streaming one does at its next write.
            bool gone = false;
            if (!fh) gone = co_await sim_io::wait_finished(stream, lr);
            sent = gone ? 0 : n;
            if (!gone && f == fault::stall) co_await sim_io::sleep_ms(stream, cfg_.faults.stall_ms);
            if (gone) {
                rec.outcome = "client_closed";
                ok = false;
            } else if (f == fault::disconnect) {
                rec.outcome = "fault";
                ok = false;
            } else {
                const std::string text = generated_words(h, n);
                rw.cached_tokens = lr.cached_tokens;
                std::string s = responses ? rw.body(text, n, length)
                                          : completion_response(chat, (chat ? "chatcmpl-" : "cmpl-") + std::to_string(id),
                                                                started_unix_, cfg_.served_model_name, text, finish,
                                                                r.prompt_tokens, n, lr.cached_tokens);
                if (f == fault::bad_chunk) s.resize(s.size() / 2);
                ok = co_await sim_io::send(stream, req, http::status::ok, std::move(s));
                rec.first_token_ns = rec.last_token_ns = steady_now_ns();
                if (!ok) rec.outcome = "client_closed";
            }
        }

        if (fh) {
            --counters_.streams;
            counters_.generated_tokens += sent;
        } else {
            runner_.remove(id, lr);
        }
        if (ok) ++counters_.success;
        rec.completion_tokens = sent;
        rec.cached_tokens = lr.cached_tokens;
        rec.end_ns = steady_now_ns();
        if (cfg_.log_content) {
            // The words are a function of the request's seed: generated again, as they were
            // sent (as for a Responses .done event and a non-streamed answer).
            rec.content = true;
            rec.body = req.body();
            rec.output = generated_words(h, sent);
        }
        log_.write(rec);
        co_return ok;
    }

    // An embeddings request: one prefill pass through the engine (its single
    // output token discarded), then the whole answer. Faults are not injected.
    template <class Stream>
    net::awaitable<bool> embed(Stream& stream, const http::request<http::string_body>& req, std::int64_t first_byte_ns) {
        log_record rec;
        rec.first_byte_ns = first_byte_ns;
        rec.arrival_ns = steady_now_ns();
        rec.endpoint = "/v1/embeddings";
        if (auto id = req.find("x-request-id"); id != req.end()) rec.request_id = std::string(id->value());
        rec.body_bytes = req.body().size();
        embedding_request r;
        if (auto err = parse_embedding(req.body(), cfg_, r)) {
            rec.status = static_cast<int>(err->status);
            rec.outcome = "rejected";
            rec.end_ns = steady_now_ns();
            log_.write(rec);
            co_return co_await sim_io::send(stream, req, err->status, error_body(*err));
        }
        rec.prompt_tokens = r.prompt_tokens;
        live_request lr(stream.get_executor());
        const std::uint64_t id = next_id_++;
        bool gone = false;
        if (cfg_.model.firehose) {
            counters_.prompt_tokens += r.prompt_tokens;
        } else {
            runner_.add(lr, seq_request{id, r.prompt_tokens, 1, block_hashes(r.token_ids, cfg_.model.block_size)});
            gone = co_await sim_io::wait_finished(stream, lr);
            runner_.remove(id, lr);
        }
        bool ok = !gone;
        if (ok) {
            ok = co_await sim_io::send(stream, req, http::status::ok,
                                       embedding_response(cfg_.served_model_name, started_unix_, r));
            rec.first_token_ns = rec.last_token_ns = steady_now_ns();
        }
        if (ok) ++counters_.success;
        if (!ok) rec.outcome = "client_closed";
        rec.cached_tokens = lr.cached_tokens;
        rec.end_ns = steady_now_ns();
        log_.write(rec);
        co_return ok;
    }

    net::io_context& io_;
    sim_config cfg_;
    engine_runner runner_;
    leak_store leaks_;
    sim_request_log log_;
    std::optional<ssl::context> tls_;
    std::string model_json_;
    std::uint64_t next_id_ = 1;
    std::uint64_t completion_index_ = 0;
    sim_counters counters_;
    std::int64_t started_ns_ = steady_now_ns();
    std::int64_t started_unix_ = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count();
};

http_server::http_server(net::io_context& io, sim_config cfg) : impl_(std::make_unique<impl>(io, std::move(cfg))) {}
http_server::~http_server() = default;
void http_server::start() { impl_->start(); }
void http_server::flush_log() { impl_->flush_log(); }

}  // namespace openloop
