#include "openloop/wire/client.hpp"

#include "openloop/measure/clock.hpp"
#include "openloop/wire/chunk.hpp"
#include "openloop/wire/connection_pool.hpp"
#include "openloop/wire/exchange.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using steady = std::chrono::steady_clock;

namespace {

// How often the timeouts of requests in flight are looked at: each fires at
// most this late (deadline_sweep.hpp).
constexpr std::chrono::milliseconds sweep_period{50};

// One request and its whole answer, for setup calls.
template <class Stream, class Request>
net::awaitable<std::pair<int, std::string>> setup_exchange(Stream& stream, connection& c, Request& req) {
    http::response<http::string_body> res;
    c.lowest().expires_after(std::chrono::seconds(30));
    auto [ec, n] = co_await http::async_write(stream, req);
    if (!ec) std::tie(ec, n) = co_await http::async_read(stream, c.buffer, res);
    if (ec) throw std::runtime_error(std::string(req.method_string()) + " " + std::string(req.target()) + ": " + ec.message());
    co_return std::pair<int, std::string>{static_cast<int>(res.result_int()), std::move(res.body())};
}

}  // namespace

struct client::impl {
    client_options opt;
    connection_pool pool;
    chunk_decoder decoder;  // decode() keeps no state between calls: one serves every request
    error_messages messages;  // the io thread's only: read after the io loop has stopped

    // A server may quote what it was sent ("Incorrect API key provided:
    // sk-..."): header values (the API key among them) never reach results.
    void note(error_class cls, int status, std::string message) {
        for (const auto& [name, value] : opt.headers) {
            std::string_view secret = value;
            if (secret.starts_with("Bearer ")) secret.remove_prefix(7);
            if (secret.size() < 8) continue;
            for (auto at = message.find(secret); at != std::string::npos; at = message.find(secret, at))
                message.replace(at, secret.size(), "[redacted]");
        }
        messages.note(cls, status, message);
    }

    deadline_sweep sweep;
    // Plain TCP reads of every request land here first (exchange.hpp).
    std::unique_ptr<char[]> read_buffer = std::make_unique<char[]>(shared_read_bytes);

    impl(net::io_context& io, client_options o) : opt(std::move(o)), pool(io, opt), sweep(io, sweep_period) {}

    // A setup call on a connection of its own: the status and body of any
    // answer, or an exception naming the call when there was none.
    net::awaitable<std::pair<int, std::string>> setup_call(http::verb verb, std::string path, std::string json_body) {
        const std::string what = std::string(http::to_string(verb)) + " " + path;
        error_class cls{};
        std::string why;
        auto c = co_await pool.open(cls, why);
        if (!c) throw std::runtime_error(what + ": " + (why.empty() ? std::string(error_class_name(cls)) + " error" : why));
        http::request<http::string_body> req{verb, path, 11};
        req.set(http::field::host, opt.target.host_header);
        req.set(http::field::user_agent, "openloop/" OPENLOOP_VERSION);
        if (verb == http::verb::post) req.set(http::field::content_type, "application/json");
        for (const auto& [k, v] : opt.headers) req.set(k, v);
        req.body() = std::move(json_body);
        req.prepare_payload();
        // Two statements: GCC 12 miscompiles co_await and a capturing lambda in one.
        auto op = c->with_stream([&](auto& stream) { return setup_exchange(stream, *c, req); });
        co_return co_await std::move(op);
    }

    net::awaitable<exchange_result> send(std::uint64_t index, const prepared_request& req, client& cl);
};

client::client(net::io_context& io, client_options options, spsc_ring<event>& ring)
    : impl_(std::make_unique<impl>(io, std::move(options))), requests_(io), ring_(ring) {}

client::~client() = default;

void client::setup() { impl_->pool.setup(); }

net::awaitable<void> client::open_spare(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) co_await impl_->pool.open_one();
    impl_->pool.schedule_refresh();
}

void client::want_connections(std::size_t n) { impl_->pool.want_soon(n); }

void client::emit(const event& e) noexcept {
    if (!ring_.try_push(e)) lost_.fetch_add(1, std::memory_order_relaxed);
}

void client::close_all() {
    impl_->pool.close_all();
    requests_.cancel_all();
}

net::awaitable<std::string> client::get(std::string path) {
    auto [status, body] = co_await impl_->setup_call(http::verb::get, path, {});
    if (status != 200) throw std::runtime_error("GET " + path + ": HTTP " + std::to_string(status));
    co_return body;
}

net::awaitable<std::pair<int, std::string>> client::post(std::string path, std::string json_body) {
    co_return co_await impl_->setup_call(http::verb::post, std::move(path), std::move(json_body));
}

// A pooled connection (a spare, or one that served a request before) may
// have been closed by the server as the request went out: a request that
// received nothing at all on one goes again, once, on a fresh connection.
// Its clock still runs from the intended time.
net::awaitable<exchange_result> client::impl::send(std::uint64_t index, const prepared_request& req, client& cl) {
    const bool& cancelled = pool.closing();
    deadlines dl;
    dl.idle = opt.idle_timeout;
    request_clock clock;
    sweep.add(clock);
    struct unregister {
        deadline_sweep& sweep;
        request_clock& clock;
        ~unregister() { sweep.remove(clock); }
    } registered{sweep, clock};
    bool sent = false;
    bool retried = false;
    for (;;) {
        if (cancelled) {
            // Aborted before this attempt began: no operation was there to cancel.
            exchange_result aborted;
            aborted.failure = error_class::cancelled;
            co_return aborted;
        }
        std::unique_ptr<connection> c = retried ? nullptr : pool.take_idle();
        const bool pooled = c != nullptr;
        if (!c) {
            error_class cls{};
            std::string why;
            const std::int64_t t0 = steady_now_ns();
            c = co_await pool.open(cls, why);
            if (!c) {
                exchange_result unopened;
                unopened.failure = cancelled ? error_class::cancelled : cls;
                if (!cancelled) unopened.message = std::move(why);
                co_return unopened;
            }
            const std::int64_t t1 = steady_now_ns();
            cl.emit(event{t1, t1 - t0, index, 0, 0, event_kind::connect});
        }
        pool.keep_spares();
        if (!sent) {
            sent = true;
            cl.emit(event{steady_now_ns(), 0, index, 0, 0, event_kind::sent});
            const auto start = steady::now();
            if (opt.first_token_timeout.count() > 0) dl.first_token = start + opt.first_token_timeout;
            if (opt.total_timeout.count() > 0) dl.total = start + opt.total_timeout;
        }
        const exchange_result result =
            co_await exchange(*c, req, dl, {index, opt.max_body, cl, decoder, cancelled, clock, read_buffer.get()});
        clock.stream = nullptr;  // the connection may close, or serve another request, from here
        const bool retryable = result.nothing_received && result.failure != error_class::timeout_total &&
                               result.failure != error_class::cancelled;
        if (result.failure != error_class::none && retryable && pooled && !retried && !cancelled) {
            cl.emit(event{steady_now_ns(), 0, index, static_cast<std::int32_t>(result.failure), 0, event_kind::retry});
            retried = true;
            continue;
        }
        pool.finished(std::move(c), pooled, result.failure == error_class::none, result.reusable);
        co_return result;
    }
}

const error_messages& client::messages() const { return impl_->messages; }

net::awaitable<request_end> client::run(std::uint64_t index, const prepared_request& req, std::int64_t intended_ns,
                                        std::int64_t flags) {
    // Cancellation comes back as operation_aborted results, classified as
    // cancelled; thrown instead, it would skip the bookkeeping below.
    co_await net::this_coro::throw_if_cancelled(false);
    emit(event{intended_ns, flags, index, req.input_tokens, req.max_tokens, event_kind::start});
    ++in_flight_;
    exchange_result result;
    try {
        result = co_await impl_->send(index, req, *this);
    } catch (...) {
        // The request still ends, so the reporter's count of it is right.
        emit(event{steady_now_ns(), 0, index, static_cast<std::int32_t>(error_class::io), 0, event_kind::failed});
        impl_->note(error_class::io, 0, cancel_group::describe(std::current_exception()));
        --in_flight_;
        throw;
    }
    if (result.failure != error_class::none) {
        emit(event{steady_now_ns(), 0, index, static_cast<std::int32_t>(result.failure), result.status, event_kind::failed});
        // Cancellations are openloop's own doing: nothing the server said.
        if (result.failure != error_class::cancelled) impl_->note(result.failure, result.status, result.message);
    }
    --in_flight_;
    co_return request_end{result.failure, result.status};
}

}  // namespace openloop
