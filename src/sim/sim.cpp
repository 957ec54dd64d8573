#include "openloop/sim/sim.hpp"

#include "openloop/measure/clock.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/sim/sim_tokenizer.hpp"
#include "openloop/load/tokens.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <functional>
#include <unordered_map>

#include <unistd.h>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
namespace json = boost::json;
using tcp = net::ip::tcp;
using sim_clock = std::chrono::steady_clock;

double fault_config::total() const {
    return http_429 + http_500 + http_503 + disconnect + bad_chunk + stall + slow_first_byte;
}

std::string_view fault_name(fault f) {
    switch (f) {
    case fault::none: return "none";
    case fault::http_429: return "http_429";
    case fault::http_500: return "http_500";
    case fault::http_503: return "http_503";
    case fault::disconnect: return "disconnect";
    case fault::bad_chunk: return "bad_chunk";
    case fault::stall: return "stall";
    case fault::slow_first_byte: return "slow_first_byte";
    }
    return "none";
}

fault pick_fault(const fault_config& c, std::uint64_t seed, std::uint64_t request_index) {
    if (c.total() <= 0) return fault::none;
    const double u = static_cast<double>(mix64(seed ^ mix64(request_index ^ 0xfa17ULL)) >> 11) * 0x1.0p-53;
    const std::pair<double, fault> table[] = {
        {c.http_429, fault::http_429},     {c.http_500, fault::http_500},
        {c.http_503, fault::http_503},     {c.disconnect, fault::disconnect},
        {c.bad_chunk, fault::bad_chunk},   {c.stall, fault::stall},
        {c.slow_first_byte, fault::slow_first_byte},
    };
    double acc = 0;
    for (const auto& [p, f] : table) {
        acc += p;
        if (u < acc) return f;
    }
    return fault::none;
}

bool set_quirk(sim_quirks& q, std::string_view name) {
    const std::pair<std::string_view, bool sim_quirks::*> table[] = {
        {"no-role-chunk", &sim_quirks::no_role_chunk},
        {"usage-in-last-chunk", &sim_quirks::usage_in_last_chunk},
        {"always-usage", &sim_quirks::always_usage},
        {"ignore-stream-options", &sim_quirks::ignore_stream_options},
        {"no-done", &sim_quirks::no_done},
        {"keepalive-comments", &sim_quirks::keepalive_comments},
        {"empty-choices-chunk", &sim_quirks::empty_choices_chunk},
        {"error-500", &sim_quirks::error_500},
        {"close-after-completion", &sim_quirks::close_after_completion},
        {"close-stale", &sim_quirks::close_stale},
    };
    for (const auto& [n, member] : table) {
        if (n == name) {
            q.*member = true;
            return true;
        }
    }
    return false;
}

std::string_view quirk_names() {
    return "no-role-chunk, usage-in-last-chunk, always-usage, ignore-stream-options, no-done, keepalive-comments, "
           "empty-choices-chunk, error-500, close-after-completion, close-stale";
}

namespace {

constexpr auto use_tuple = net::as_tuple(net::use_awaitable);
constexpr int fault_kinds = 8;

void append_int(std::string& out, std::int64_t v) {
    char buf[24];
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
    out.append(buf, end);
}

// A request the simulator accepted, in the terms the engine and the writer need.
struct completion_request {
    bool chat = false;
    bool stream = false;
    bool include_usage = false;
    bool continuous_usage = false;
    int prompt_tokens = 0;
    std::vector<std::uint64_t> token_ids;
    int max_tokens = 0;
    int min_tokens = 0;
    bool ignore_eos = false;
    double temperature = 1.0;
    std::optional<std::int64_t> seed;
};

struct api_error {
    http::status status = http::status::bad_request;
    std::string type = "BadRequestError";
    std::string message;
};

bool read_int(const json::object& o, std::string_view key, int& out, std::string& err) {
    const auto* v = o.if_contains(key);
    if (!v || v->is_null()) return true;
    if (!v->is_int64() && !v->is_uint64()) {
        err = std::string(key) + " must be an integer";
        return false;
    }
    out = static_cast<int>(v->to_number<std::int64_t>());
    return true;
}

api_error bad_request(std::string message) { return {http::status::bad_request, "BadRequestError", std::move(message)}; }

std::string error_body(const api_error& e) {
    json::object inner{{"message", e.message}, {"type", e.type}, {"param", nullptr},
                       {"code", static_cast<int>(e.status)}};
    return json::serialize(json::object{{"error", std::move(inner)}});
}

// doc := body, a JSON object addressed to the served model (or to no model).
std::optional<api_error> parse_body(std::string_view body, const sim_config& cfg, json::value& doc) {
    json::error_code ec;
    doc = json::parse(body, ec);
    if (ec) return bad_request("Invalid JSON body: " + ec.message());
    const auto* o = doc.if_object();
    if (!o) return bad_request("The request body must be a JSON object");
    if (const auto* m = o->if_contains("model"); m && m->is_string() && m->get_string() != cfg.served_model_name) {
        return api_error{http::status::not_found, "NotFoundError",
                         "The model `" + std::string(m->get_string()) + "` does not exist."};
    }
    return std::nullopt;
}

std::optional<api_error> parse_completion(std::string_view body, bool chat, const sim_config& cfg,
                                          completion_request& r) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc)) return e;
    const auto& o = doc.get_object();
    r.chat = chat;
    std::string err;
    if (!request_prompt_ids(cfg.tokenizer, o, chat, r.token_ids, err)) return bad_request(err);
    r.prompt_tokens = static_cast<int>(r.token_ids.size());

    int n = 1;
    if (!read_int(o, "n", n, err)) return bad_request(err);
    if (n != 1) return bad_request("n: the simulator supports n=1 only");

    // vLLM's defaults: 16 tokens for /v1/completions, the rest of the context for chat.
    r.max_tokens = chat ? cfg.model.max_model_len - r.prompt_tokens : 16;
    if (!read_int(o, "max_tokens", r.max_tokens, err)) return bad_request(err);
    if (chat && !read_int(o, "max_completion_tokens", r.max_tokens, err)) return bad_request(err);
    if (!read_int(o, "min_tokens", r.min_tokens, err)) return bad_request(err);
    if (r.max_tokens < 1) return bad_request("max_tokens must be at least 1, got " + std::to_string(r.max_tokens));
    if (r.min_tokens < 0 || r.min_tokens > r.max_tokens) return bad_request("min_tokens must be between 0 and max_tokens");
    if (r.prompt_tokens + r.max_tokens > cfg.model.max_model_len) {
        return bad_request("This model's maximum context length is " + std::to_string(cfg.model.max_model_len) +
                           " tokens. However, you requested " + std::to_string(r.prompt_tokens + r.max_tokens) +
                           " tokens (" + std::to_string(r.prompt_tokens) + " in the messages, " +
                           std::to_string(r.max_tokens) + " in the completion). Please reduce the length of the "
                           "messages or completion.");
    }
    if (const auto* v = o.if_contains("ignore_eos"); v && v->is_bool()) r.ignore_eos = v->get_bool();
    if (const auto* v = o.if_contains("temperature"); v && v->is_number()) r.temperature = v->to_number<double>();
    if (const auto* v = o.if_contains("seed"); v && (v->is_int64() || v->is_uint64())) r.seed = v->to_number<std::int64_t>();
    if (const auto* v = o.if_contains("stream"); v && v->is_bool()) r.stream = v->get_bool();
    if (const auto* so = o.if_contains("stream_options"); so && so->is_object()) {
        if (const auto* v = so->get_object().if_contains("include_usage"); v && v->is_bool()) r.include_usage = v->get_bool();
        if (const auto* v = so->get_object().if_contains("continuous_usage_stats"); v && v->is_bool())
            r.continuous_usage = v->get_bool();
    }
    return std::nullopt;
}

// POST /tokenize in vLLM's shape: {"prompt": str} or {"messages": [...]},
// counted as the completion or chat request with the same fields would be.
std::pair<http::status, std::string> tokenize_response(std::string_view body, const sim_config& cfg) {
    json::value doc;
    if (auto e = parse_body(body, cfg, doc)) return {e->status, error_body(*e)};
    std::vector<std::uint64_t> ids;
    std::string err;
    if (!tokenize_request_ids(cfg.tokenizer, doc.get_object(), ids, err))
        return {http::status::bad_request, error_body(bad_request(err))};
    json::array tokens;
    tokens.reserve(ids.size());
    for (auto id : ids) tokens.emplace_back(sim_vocab_id(id));
    return {http::status::ok, json::serialize(json::object{{"count", tokens.size()},
                                                           {"max_model_len", cfg.model.max_model_len},
                                                           {"tokens", std::move(tokens)}})};
}

// Output length: exactly max_tokens with ignore_eos; otherwise a "natural"
// length (lognormal, median 200 tokens) at which the model would emit EOS,
// drawn from the request's own seed so it is reproducible.
int output_length(const completion_request& r, std::uint64_t h) {
    if (r.ignore_eos) return r.max_tokens;
    const double u1 = (static_cast<double>(mix64(h) >> 11) + 0.5) * 0x1.0p-53;
    const double u2 = (static_cast<double>(mix64(h + 1) >> 11) + 0.5) * 0x1.0p-53;
    const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
    const int natural = std::max(1, static_cast<int>(std::lround(200.0 * std::exp(0.8 * z))));
    return std::clamp(natural, std::max(1, r.min_tokens), r.max_tokens);
}

// Formats the SSE events of one response. Each event is built into a reused
// buffer; the simulator must outpace the generator it measures.
struct event_writer {
    bool chat = false;
    bool continuous_usage = false;
    std::string head;  // {"id":...,"object":...,"created":...,"model":...,"choices":
    int prompt_tokens = 0;
    int cached_tokens = 0;
    std::uint64_t word_state = 0;

    void usage(std::string& out, int completion) const {
        out.append(R"("usage":{"prompt_tokens":)");
        append_int(out, prompt_tokens);
        out.append(R"(,"total_tokens":)");
        append_int(out, prompt_tokens + completion);
        out.append(R"(,"completion_tokens":)");
        append_int(out, completion);
        if (cached_tokens > 0) {
            out.append(R"(,"prompt_tokens_details":{"cached_tokens":)");
            append_int(out, cached_tokens);
            out.push_back('}');
        }
        out.push_back('}');
    }

    void role(std::string& out) const {
        out.append("data: ").append(head);
        out.append(R"([{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}])");
        if (continuous_usage) {
            out.push_back(',');
            usage(out, 0);
        }
        out.append("}\n\n");
    }

    void words(std::string& out, int k) {
        for (int i = 0; i < k; ++i) {
            word_state = mix64(word_state);
            out.push_back(' ');
            out.append(vocab_word(word_state >> 58));
        }
    }

    // k new tokens; completion = tokens sent including these. with_usage puts
    // the usage object on this chunk even without continuous usage stats.
    void content(std::string& out, int k, int completion, std::string_view finish_reason, bool with_usage = false) {
        out.append("data: ").append(head);
        out.append(chat ? R"([{"index":0,"delta":{"content":")" : R"([{"index":0,"text":")");
        words(out, k);
        out.append(chat ? R"("},"logprobs":null,"finish_reason":)" : R"(","logprobs":null,"finish_reason":)");
        if (finish_reason.empty()) {
            out.append("null");
        } else {
            out.push_back('"');
            out.append(finish_reason).push_back('"');
        }
        if (!chat) out.append(R"(,"stop_reason":null)");
        out.append("}]");
        if (continuous_usage || with_usage) {
            out.push_back(',');
            usage(out, completion);
        }
        out.append("}\n\n");
    }

    void empty_choices(std::string& out) const { out.append("data: ").append(head).append("[]}\n\n"); }

    void final_usage(std::string& out, int completion) const {
        out.append("data: ").append(head).append("[],");
        usage(out, completion);
        out.append("}\n\n");
    }

    // A chunk cut off mid-object, as a buggy proxy or a crashing worker sends.
    void malformed(std::string& out) const {
        out.append("data: ").append(head).append(R"([{"index":0,"delta":{"content":" tru)").append("\n\n");
    }
};

struct live_request {
    explicit live_request(const net::any_io_executor& ex) : wake(ex, sim_clock::time_point::max()) {}
    net::steady_timer wake;  // cancelled by the scheduler when tokens are ready
    int ready = 0;
    int cached_tokens = 0;
    bool finished = false;
};

struct log_record {
    std::string request_id;
    std::string_view endpoint;
    bool stream = false;
    std::int64_t arrival_ns = 0;
    std::int64_t first_token_ns = -1;
    std::int64_t last_token_ns = -1;
    std::int64_t end_ns = -1;
    int prompt_tokens = 0;
    int completion_tokens = 0;
    int cached_tokens = 0;
    int status = 200;
    fault injected = fault::none;
    std::string_view outcome = "ok";
};

class server {
public:
    server(net::io_context& io, sim_config cfg) : io_(io), cfg_(std::move(cfg)), engine_(cfg_.model), idle_(io) {
        if (!cfg_.log_path.empty()) {
            log_.open(cfg_.log_path, std::ios::out | std::ios::trunc);
            if (!log_) throw std::runtime_error("sim: cannot open log file " + cfg_.log_path);
        }
        if (!cfg_.tls_cert.empty() || !cfg_.tls_key.empty()) {
            if (cfg_.tls_cert.empty() || cfg_.tls_key.empty())
                throw std::runtime_error("sim: --tls-cert and --tls-key go together");
            tls_.emplace(ssl::context::tls_server);
            boost::system::error_code ec;
            tls_->use_certificate_chain_file(cfg_.tls_cert, ec);
            if (ec) throw std::runtime_error("sim: cannot load certificate " + cfg_.tls_cert + ": " + ec.message());
            tls_->use_private_key_file(cfg_.tls_key, ssl::context::pem, ec);
            if (ec) throw std::runtime_error("sim: cannot load private key " + cfg_.tls_key + ": " + ec.message());
        }
        model_json_ = json::serialize(json::value(cfg_.served_model_name));
    }

    void start() {
        boost::system::error_code ec;
        auto address = net::ip::make_address(cfg_.host, ec);
        if (ec) throw std::runtime_error("sim: bad --host '" + cfg_.host + "': " + ec.message());
        tcp::acceptor acceptor(io_);
        tcp::endpoint ep(address, cfg_.port);
        acceptor.open(ep.protocol());
        acceptor.set_option(net::socket_base::reuse_address(true));
        acceptor.bind(ep, ec);
        if (ec) throw std::runtime_error("sim: cannot bind " + cfg_.host + ":" + std::to_string(cfg_.port) + ": " + ec.message());
        acceptor.listen(net::socket_base::max_listen_connections);
        const auto port = acceptor.local_endpoint().port();
        std::printf("openloop-sim listening on %s://%s:%u\n", tls_ ? "https" : "http",
                    address.is_v6() ? ("[" + cfg_.host + "]").c_str() : cfg_.host.c_str(), unsigned(port));
        std::fflush(stdout);
        net::co_spawn(io_, accept_loop(std::move(acceptor)), rethrow);
        if (!cfg_.model.firehose) net::co_spawn(io_, scheduler(), rethrow);
    }

    void flush_log() {
        if (log_.is_open()) log_.flush();
    }

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

    net::awaitable<void> accept_loop(tcp::acceptor acceptor) {
        for (;;) {
            auto [ec, socket] = co_await acceptor.async_accept(use_tuple);
            if (ec == net::error::operation_aborted) co_return;
            if (ec) continue;  // e.g. EMFILE under a connection storm: keep serving the others
            socket.set_option(tcp::no_delay(true), ec);
            if (tls_) {
                net::co_spawn(io_, session(beast::ssl_stream<beast::tcp_stream>(std::move(socket), *tls_)), report);
            } else {
                net::co_spawn(io_, session(beast::tcp_stream(std::move(socket))), report);
            }
        }
    }

    // One step at a time: plan it, sleep its modelled duration, deliver its tokens.
    net::awaitable<void> scheduler() {
        net::steady_timer step_timer(io_);
        for (;;) {
            if (engine_.idle()) {
                idle_.expires_at(sim_clock::time_point::max());
                co_await idle_.async_wait(use_tuple);
                continue;
            }
            const auto start = sim_clock::now();
            auto result = engine_.step();
            step_timer.expires_at(start + std::chrono::nanoseconds(result.duration_ns));
            co_await step_timer.async_wait(use_tuple);
            for (const auto& e : result.out) {
                auto it = live_.find(e.id);
                if (it == live_.end()) continue;
                it->second->ready += e.tokens;
                if (e.cached_tokens > 0) it->second->cached_tokens = e.cached_tokens;
                if (e.finished) it->second->finished = true;
                it->second->wake.cancel();
            }
        }
    }

    template <class Stream>
    static beast::tcp_stream& tcp_of(Stream& s) {
        return beast::get_lowest_layer(s);
    }

    template <class Stream>
    net::awaitable<void> session(Stream stream) {
        if constexpr (!std::is_same_v<Stream, beast::tcp_stream>) {
            tcp_of(stream).expires_after(std::chrono::seconds(30));
            auto [ec] = co_await stream.async_handshake(ssl::stream_base::server, use_tuple);
            if (ec) co_return;
        }
        beast::flat_buffer buffer;
        auto idle_since = std::chrono::steady_clock::now();
        for (int served = 0;;) {
            // Idle until the first byte of the next request, under the
            // keep-alive timeout; the rest of the request gets the read timeout.
            if (buffer.size() == 0) {
                if (cfg_.keep_alive_timeout.count() > 0) {
                    tcp_of(stream).expires_after(cfg_.keep_alive_timeout);
                } else {
                    tcp_of(stream).expires_never();
                }
                auto [ec, n] = co_await stream.async_read_some(buffer.prepare(4096), use_tuple);
                if (ec == beast::error::timeout) {
                    // The expiry closed the socket: a plain close, TLS or not,
                    // so the client's next write meets a reset.
                    ++idle_closes_;
                    co_return;
                }
                if (ec) break;
                buffer.commit(n);
                if (cfg_.quirks.close_stale && std::chrono::steady_clock::now() - idle_since > std::chrono::seconds(1)) {
                    ++stale_drops_;
                    co_return;  // closed with the request unread, as at the instant of an idle close
                }
            }
            http::request_parser<http::string_body> parser;
            parser.body_limit(cfg_.max_request_bytes);
            tcp_of(stream).expires_after(std::chrono::minutes(5));
            auto [ec, n] = co_await http::async_read(stream, buffer, parser, use_tuple);
            if (ec) break;
            tcp_of(stream).expires_never();
            auto req = parser.release();
            // The connection's last request: as one that is not keep-alive, every
            // response path answers it with Connection: close, and the loop ends.
            if (cfg_.keep_alive_max_requests > 0 && ++served == cfg_.keep_alive_max_requests && req.keep_alive()) {
                req.keep_alive(false);
                ++max_requests_closes_;
            }
            const bool keep = co_await handle(stream, req);
            if (!keep || !req.keep_alive()) break;
            idle_since = std::chrono::steady_clock::now();
            if (cfg_.quirks.close_after_completion && req.method() == http::verb::post &&
                req.target().ends_with("completions")) {
                ++completion_closes_;
                break;
            }
        }
        if constexpr (std::is_same_v<Stream, beast::tcp_stream>) {
            boost::system::error_code ec;
            stream.socket().shutdown(tcp::socket::shutdown_send, ec);
        } else {
            tcp_of(stream).expires_after(std::chrono::seconds(5));
            co_await stream.async_shutdown(use_tuple);
        }
    }

    template <class Stream>
    net::awaitable<bool> send(Stream& stream, const http::request<http::string_body>& req, http::status status,
                              std::string body, std::string_view content_type = "application/json",
                              int retry_after = -1) {
        http::response<http::string_body> res{status, req.version()};
        res.set(http::field::server, "openloop-sim");
        res.set(http::field::content_type, content_type);
        if (auto id = req.find("x-request-id"); id != req.end()) res.set("x-request-id", id->value());
        if (retry_after >= 0) res.set(http::field::retry_after, std::to_string(retry_after));
        res.keep_alive(req.keep_alive());
        res.body() = std::move(body);
        res.prepare_payload();
        auto [ec, n] = co_await http::async_write(stream, res, use_tuple);
        co_return !ec;
    }

    template <class Stream>
    net::awaitable<bool> handle(Stream& stream, const http::request<http::string_body>& req) {
        const std::string_view target(req.target().data(), req.target().size());
        const std::string_view path = target.substr(0, target.find('?'));
        const bool get = req.method() == http::verb::get;
        const bool post = req.method() == http::verb::post;
        if (path == "/v1/chat/completions" || path == "/v1/completions") {
            if (!post) co_return co_await send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            co_return co_await complete(stream, req, path == "/v1/chat/completions");
        }
        if (path == "/tokenize") {
            if (!post) co_return co_await send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            auto [status, body] = tokenize_response(req.body(), cfg_);
            co_return co_await send(stream, req, status, std::move(body));
        }
        if (path == "/health" || path == "/v1/models" || path == "/metrics") {
            if (!get) co_return co_await send(stream, req, http::status::method_not_allowed, R"({"detail":"Method Not Allowed"})");
            if (path == "/health") co_return co_await send(stream, req, http::status::ok, "", "text/plain");
            if (path == "/metrics")
                co_return co_await send(stream, req, http::status::ok, metrics(), "text/plain; version=0.0.4; charset=utf-8");
            co_return co_await send(stream, req, http::status::ok, models());
        }
        co_return co_await send(stream, req, http::status::not_found, R"({"detail":"Not Found"})");
    }

    std::string models() const {
        json::object model{{"id", cfg_.served_model_name}, {"object", "model"}, {"created", started_unix_},
                           {"owned_by", "openloop"}, {"max_model_len", cfg_.model.max_model_len}};
        return json::serialize(json::object{{"object", "list"}, {"data", json::array{std::move(model)}}});
    }

    // vLLM's metric names, so whatever scrapes a vLLM server scrapes this too.
    std::string metrics() const {
        const std::string label = "{model_name=" + model_json_ + "}";
        std::string out;
        auto metric = [&](std::string_view name, std::string_view type, std::string_view help, double v) {
            out.append("# HELP ").append(name).append(" ").append(help).append("\n");
            out.append("# TYPE ").append(name).append(" ").append(type).append("\n");
            out.append(name).append(label).append(" ");
            char buf[32];
            auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
            out.append(buf, end).append("\n");
        };
        const bool fh = cfg_.model.firehose;
        metric("vllm:num_requests_running", "gauge", "Requests in the running batch.",
               fh ? static_cast<double>(streams_) : static_cast<double>(engine_.running()));
        metric("vllm:num_requests_waiting", "gauge", "Requests waiting to be scheduled.",
               fh ? 0.0 : static_cast<double>(engine_.waiting()));
        metric("vllm:kv_cache_usage_perc", "gauge", "KV-cache usage, 1 means 100 percent.", engine_.kv_usage());
        metric("vllm:gpu_cache_usage_perc", "gauge", "KV-cache usage (name before vLLM 0.10).", engine_.kv_usage());
        metric("vllm:prompt_tokens_total", "counter", "Prompt tokens processed.",
               static_cast<double>(fh ? prompt_tokens_ : engine_.prompt_tokens_total()));
        metric("vllm:generation_tokens_total", "counter", "Generation tokens produced.",
               static_cast<double>(fh ? generated_tokens_ : engine_.generation_tokens_total()));
        metric("vllm:prefix_cache_queries_total", "counter", "Prompt tokens looked up in the prefix cache.",
               static_cast<double>(engine_.prefix_cache_queries() * cfg_.model.block_size));
        metric("vllm:prefix_cache_hits_total", "counter", "Prompt tokens found in the prefix cache.",
               static_cast<double>(engine_.prefix_cache_hits() * cfg_.model.block_size));
        metric("vllm:request_success_total", "counter", "Requests finished.", static_cast<double>(success_));
        out.append("# HELP openloop_sim_faults_total Faults injected, by kind.\n# TYPE openloop_sim_faults_total counter\n");
        for (int k = 1; k < fault_kinds; ++k) {
            out.append("openloop_sim_faults_total{kind=\"").append(fault_name(static_cast<fault>(k))).append("\"} ");
            append_int(out, faults_[k]);
            out.push_back('\n');
        }
        out.append("# HELP openloop_sim_keepalive_closes_total Connections the server closed, by reason.\n"
                   "# TYPE openloop_sim_keepalive_closes_total counter\n");
        for (auto [reason, n] : {std::pair<std::string_view, std::int64_t>{"idle_timeout", idle_closes_},
                                 {"max_requests", max_requests_closes_},
                                 {"quirk_close_stale", stale_drops_},
                                 {"quirk_close_after_completion", completion_closes_}}) {
            out.append("openloop_sim_keepalive_closes_total{reason=\"").append(reason).append("\"} ");
            append_int(out, n);
            out.push_back('\n');
        }
        metric("process_resident_memory_bytes", "gauge", "Resident memory of the simulator.",
               static_cast<double>(resident_memory_bytes()));
        return out;
    }

    void write_log(const log_record& r) {
        if (!log_.is_open()) return;
        json::object o{{"request_id", r.request_id},
                       {"endpoint", r.endpoint},
                       {"stream", r.stream},
                       {"arrival_ns", r.arrival_ns},
                       {"first_token_ns", r.first_token_ns},
                       {"last_token_ns", r.last_token_ns},
                       {"end_ns", r.end_ns},
                       {"prompt_tokens", r.prompt_tokens},
                       {"completion_tokens", r.completion_tokens},
                       {"cached_tokens", r.cached_tokens},
                       {"status", r.status},
                       {"fault", fault_name(r.injected)},
                       {"outcome", r.outcome}};
        log_ << json::serialize(o) << '\n';
        log_.flush();  // the log is read while the server runs (tests, tail -f)
    }

    template <class Stream>
    net::awaitable<bool> write_all(Stream& stream, std::string_view data) {
        auto [ec, n] = co_await net::async_write(stream, net::buffer(data.data(), data.size()), use_tuple);
        co_return !ec;
    }

    // Frames buf as one HTTP/1.1 chunk and writes it.
    template <class Stream>
    net::awaitable<bool> write_chunk(Stream& stream, std::string& frame, const std::string& buf) {
        frame.clear();
        char hex[16];
        auto [end, ec0] = std::to_chars(hex, hex + sizeof hex, buf.size(), 16);
        frame.append(hex, end).append("\r\n");
        std::array<net::const_buffer, 3> parts{net::buffer(frame), net::buffer(buf), net::buffer("\r\n", 2)};
        auto [ec, n] = co_await net::async_write(stream, parts, use_tuple);
        co_return !ec;
    }

    template <class Stream>
    net::awaitable<void> sleep_ms(Stream& stream, int ms) {
        net::steady_timer t(stream.get_executor(), std::chrono::milliseconds(ms));
        co_await t.async_wait(use_tuple);
    }

    template <class Stream>
    net::awaitable<bool> complete(Stream& stream, const http::request<http::string_body>& req, bool chat) {
        log_record rec;
        rec.arrival_ns = steady_now_ns();
        rec.endpoint = chat ? "/v1/chat/completions" : "/v1/completions";
        if (auto id = req.find("x-request-id"); id != req.end()) rec.request_id = std::string(id->value());

        completion_request r;
        if (auto err = parse_completion(req.body(), chat, cfg_, r)) {
            if (cfg_.quirks.error_500 && err->status == http::status::bad_request) {
                err->status = http::status::internal_server_error;
                err->type = "InternalServerError";
            }
            rec.status = static_cast<int>(err->status);
            rec.outcome = "rejected";
            rec.end_ns = steady_now_ns();
            write_log(rec);
            co_return co_await send(stream, req, err->status, error_body(*err));
        }
        const auto& quirks = cfg_.quirks;
        if (quirks.ignore_stream_options) r.include_usage = r.continuous_usage = false;
        if (quirks.always_usage) r.include_usage = true;
        rec.stream = r.stream;
        rec.prompt_tokens = r.prompt_tokens;
        const std::uint64_t index = completion_index_++;
        const fault f = pick_fault(cfg_.faults, cfg_.seed, index);
        rec.injected = f;
        ++faults_[static_cast<int>(f)];

        if (f == fault::slow_first_byte) co_await sleep_ms(stream, cfg_.faults.slow_first_byte_ms);
        if (f == fault::http_429 || f == fault::http_500 || f == fault::http_503) {
            api_error e;
            e.status = f == fault::http_429 ? http::status::too_many_requests
                     : f == fault::http_500 ? http::status::internal_server_error
                                            : http::status::service_unavailable;
            e.type = f == fault::http_429 ? "RateLimitError" : f == fault::http_500 ? "InternalServerError" : "ServiceUnavailableError";
            e.message = std::string("injected fault: ") + std::string(fault_name(f));
            rec.status = static_cast<int>(e.status);
            rec.outcome = "fault";
            rec.end_ns = steady_now_ns();
            write_log(rec);
            co_return co_await send(stream, req, e.status, error_body(e), "application/json",
                                    f == fault::http_429 ? cfg_.faults.retry_after_s : -1);
        }

        // Greedy sampling without a seed is a function of the prompt; anything else of the request.
        std::uint64_t prompt_hash = 1;
        for (auto t : r.token_ids) prompt_hash = mix64(prompt_hash ^ t);
        const std::uint64_t h = r.seed ? mix64(static_cast<std::uint64_t>(*r.seed) ^ 0x5eedULL)
                              : r.temperature == 0.0 ? prompt_hash
                                                     : mix64(cfg_.seed ^ mix64(index));
        const int n = output_length(r, h);
        const std::string_view finish = (r.ignore_eos || n == r.max_tokens) ? "length" : "stop";

        event_writer w;
        w.chat = chat;
        w.continuous_usage = r.continuous_usage;
        w.prompt_tokens = r.prompt_tokens;
        w.word_state = h;
        {
            std::string id = (chat ? "chatcmpl-" : "cmpl-") + std::to_string(mix64(h ^ index) >> 16);
            w.head = R"({"id":")" + id + R"(","object":")" + (chat ? "chat.completion.chunk" : "text_completion") +
                     R"(","created":)" + std::to_string(started_unix_ + (rec.arrival_ns - started_ns_) / 1'000'000'000) +
                     R"(,"model":)" + model_json_ + R"(,"choices":)";
        }

        live_request lr(stream.get_executor());
        const std::uint64_t id = next_id_++;
        const bool fh = cfg_.model.firehose;
        if (fh) {
            prompt_tokens_ += r.prompt_tokens;
            ++streams_;
        } else {
            live_.emplace(id, &lr);
            engine_.add(seq_request{id, r.prompt_tokens, n, block_hashes(r.token_ids, cfg_.model.block_size)});
            idle_.cancel();
        }
        bool ok = true;
        int sent = 0;
        std::string buf, frame;
        const int per_event = std::max(1, cfg_.model.tokens_per_step);
        const int half = n / 2;
        bool stalled = false, corrupted = false;
        if (r.stream) {
            http::response<http::empty_body> res{http::status::ok, req.version()};
            res.set(http::field::server, "openloop-sim");
            res.set(http::field::content_type, "text/event-stream");
            res.set(http::field::cache_control, "no-cache");
            if (auto rid = req.find("x-request-id"); rid != req.end()) res.set("x-request-id", rid->value());
            res.keep_alive(req.keep_alive());
            res.chunked(true);
            http::response_serializer<http::empty_body> sr{res};
            auto [ec, wn] = co_await http::async_write_header(stream, sr, use_tuple);
            ok = !ec;
            if (ok) {
                // Azure-style filter results come first, as a chunk with no choices.
                if (quirks.empty_choices_chunk) w.empty_choices(buf);
                if (chat && !quirks.no_role_chunk) w.role(buf);
                if (!buf.empty()) ok = co_await write_chunk(stream, frame, buf);
            }
            while (ok && sent < n) {
                int avail = n - sent;
                if (!fh) {
                    while (lr.ready == 0) co_await lr.wake.async_wait(use_tuple);
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
                        w.malformed(buf);
                        corrupted = true;
                    }
                    if (f == fault::stall && !stalled && sent >= half && sent > 0) {
                        stalled = true;
                        if (!buf.empty() && !(co_await write_chunk(stream, frame, buf))) {
                            ok = false;
                            break;
                        }
                        buf.clear();
                        co_await sleep_ms(stream, cfg_.faults.stall_ms);
                    }
                    sent += k;
                    avail -= k;
                    if (quirks.keepalive_comments) buf.append(": keep-alive\n\n");
                    const bool last = sent == n;
                    w.cached_tokens = lr.cached_tokens;
                    w.content(buf, k, sent, last ? finish : std::string_view{},
                              last && r.include_usage && quirks.usage_in_last_chunk);
                }
                if (!ok) break;
                // Stamped as the bytes are handed to the socket: the client cannot see them earlier.
                const auto t = steady_now_ns();
                if (!buf.empty()) ok = co_await write_chunk(stream, frame, buf);
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
                w.cached_tokens = lr.cached_tokens;
                if (r.include_usage && !quirks.usage_in_last_chunk) w.final_usage(buf, sent);
                if (!quirks.no_done) buf.append("data: [DONE]\n\n");
                if (!buf.empty()) ok = co_await write_chunk(stream, frame, buf);
                if (ok) ok = co_await write_all(stream, "0\r\n\r\n");
                if (!ok) rec.outcome = "client_closed";
            }
        } else {
            while (!fh && !lr.finished) co_await lr.wake.async_wait(use_tuple);
            sent = n;
            if (f == fault::stall) co_await sleep_ms(stream, cfg_.faults.stall_ms);
            if (f == fault::disconnect) {
                rec.outcome = "fault";
                ok = false;
            } else {
                std::string text;
                w.words(text, n);
                json::object choice{{"index", 0}, {"logprobs", nullptr}, {"finish_reason", finish}};
                if (chat) {
                    choice["message"] = json::object{{"role", "assistant"}, {"content", text}};
                } else {
                    choice["text"] = text;
                }
                json::object usage{{"prompt_tokens", r.prompt_tokens}, {"total_tokens", r.prompt_tokens + n},
                                   {"completion_tokens", n}};
                if (lr.cached_tokens > 0) usage["prompt_tokens_details"] = json::object{{"cached_tokens", lr.cached_tokens}};
                json::object body{{"id", (chat ? "chatcmpl-" : "cmpl-") + std::to_string(id)},
                                  {"object", chat ? "chat.completion" : "text_completion"},
                                  {"created", started_unix_},
                                  {"model", cfg_.served_model_name},
                                  {"choices", json::array{std::move(choice)}},
                                  {"usage", std::move(usage)}};
                std::string s = json::serialize(body);
                if (f == fault::bad_chunk) s.resize(s.size() / 2);
                ok = co_await send(stream, req, http::status::ok, std::move(s));
                rec.first_token_ns = rec.last_token_ns = steady_now_ns();
                if (!ok) rec.outcome = "client_closed";
            }
        }

        if (fh) {
            --streams_;
            generated_tokens_ += sent;
        } else {
            live_.erase(id);
            if (!lr.finished) engine_.abort(id);
        }
        if (ok) ++success_;
        rec.completion_tokens = sent;
        rec.cached_tokens = lr.cached_tokens;
        rec.end_ns = steady_now_ns();
        write_log(rec);
        co_return ok;
    }

    net::io_context& io_;
    sim_config cfg_;
    engine engine_;
    net::steady_timer idle_;  // the scheduler sleeps on it while the engine is idle
    std::unordered_map<std::uint64_t, live_request*> live_;
    std::optional<ssl::context> tls_;
    std::ofstream log_;
    std::string model_json_;
    std::uint64_t next_id_ = 1;
    std::uint64_t completion_index_ = 0;
    std::int64_t faults_[fault_kinds] = {};
    std::int64_t idle_closes_ = 0;          // keep-alive timeouts
    std::int64_t stale_drops_ = 0;          // --quirk close-stale
    std::int64_t completion_closes_ = 0;    // --quirk close-after-completion
    std::int64_t max_requests_closes_ = 0;  // Connection: close on the last request allowed
    std::int64_t success_ = 0;
    std::int64_t streams_ = 0;
    std::int64_t prompt_tokens_ = 0;
    std::int64_t generated_tokens_ = 0;
    std::int64_t started_ns_ = steady_now_ns();
    std::int64_t started_unix_ = std::chrono::duration_cast<std::chrono::seconds>(
                                     std::chrono::system_clock::now().time_since_epoch()).count();
};

}  // namespace

void run_sim(const sim_config& cfg) {
    raise_fd_limit();
    net::io_context io{1};
    server srv(io, cfg);
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
