#include "openloop/wire/client.hpp"

#include "client_context.hpp"
#include "connection_pool.hpp"

#include "openloop/base/clock.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

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

// The client's insides: what its connections share, and the pool of them.
struct client::impl {
    impl(client& owner, net::io_context& io, client_options o)
        : ctx(owner, io, std::move(o)), pool(ctx, owner.requests_) {}
    void send(request_job job);

    client_context ctx;
    connection_pool pool;
};

namespace {

// A setup call on a connection of its own: the status and body of any
// answer, or an exception naming the call when there was none.
net::awaitable<std::pair<int, std::string>> setup_call(client_context& i, http::verb verb, std::string path,
                                                        std::string json_body) {
    const std::string what = std::string(http::to_string(verb)) + " " + path;
    error_class cls{};
    std::string why;
    auto c = co_await i.connect.open(cls, why);
    if (!c) throw std::runtime_error(what + ": " + (why.empty() ? std::string(error_class_name(cls)) + " error" : why));
    http::request<http::string_body> req{verb, path, 11};
    req.set(http::field::host, i.opt.target.host_header);
    req.set(http::field::user_agent, "openloop/" OPENLOOP_VERSION);
    if (verb == http::verb::post) req.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : i.opt.headers) req.set(k, v);
    req.body() = std::move(json_body);
    req.prepare_payload();
    // Two statements: GCC 12 miscompiles co_await and a capturing lambda in one.
    auto op = c->with_stream([&](auto& stream) { return setup_exchange(stream, *c, req); });
    co_return co_await std::move(op);
}

}  // namespace

void client::impl::send(request_job job) {
    ctx.emit(event::started(job.index, job.intended_ns, job.request.input_tokens, job.request.max_tokens, job.flags,
                            job.request.model));
    if (const prepared_request& r = job.request; r.images + r.audios > 0)
        ctx.emit(event::media_shape(job.index, job.intended_ns, static_cast<std::int64_t>(body_size(r)), r.images, r.audios, r.bucket));
    if (job.released_ns >= 0) ctx.emit(event::release(job.index, job.released_ns));
    ++ctx.in_flight;
    if (ctx.closing) {
        // Aborted before it began: nothing is there to cancel.
        std::optional<request_job> aborted(std::move(job));
        exchange_result r;
        r.failure = error_class::cancelled;
        ctx.end(aborted, r);
        return;
    }
    if (connection_worker* w = pool.take())
        w->give(std::move(job));
    else
        pool.open_for(std::move(job));
}

client::client(net::io_context& io, client_options options, spsc_ring<event>& ring)
    : impl_(std::make_unique<impl>(*this, io, std::move(options))), requests_(io), ring_(ring) {}

client::~client() = default;

void client::setup() { impl_->ctx.connect.setup(); }

net::awaitable<void> client::open_spare(std::size_t n) { return impl_->pool.open_spare(n); }

void client::want_connections(std::size_t n) { impl_->pool.want(n); }

void client::send(std::uint64_t index, prepared_request req, std::int64_t intended_ns, std::int64_t flags,
                  std::int64_t released_ns) {
    request_job job;
    job.released_ns = released_ns;
    job.index = index;
    job.request = std::move(req);
    job.intended_ns = intended_ns;
    job.flags = flags;
    impl_->send(std::move(job));
}

void client::on_end(std::function<void(finished_request&)> handler) { impl_->ctx.on_end = std::move(handler); }

net::awaitable<finished_request> client::run(std::uint64_t index, prepared_request req, std::int64_t intended_ns,
                                             std::int64_t flags) {
    co_await net::this_coro::throw_if_cancelled(false);
    run_waiter waiter(impl_->ctx.io);
    request_job job;
    job.index = index;
    job.request = std::move(req);
    job.intended_ns = intended_ns;
    job.flags = flags;
    job.waiter = &waiter;
    impl_->send(std::move(job));
    // Cancelled (close_all), the request is cancelled too: wait on until it
    // has ended, since it refers to this frame.
    while (!waiter.done) {
        waiter.timer.expires_at(steady_timer::time_point::max());
        co_await waiter.timer.async_wait();
    }
    co_return std::move(waiter.result);
}

void client::emit(const event& e) noexcept {
    if (!ring_.try_push(e)) lost_.fetch_add(1, std::memory_order_relaxed);
}

void client::close_all() {
    impl_->ctx.closing = true;
    impl_->pool.close();
    requests_.cancel_all();
}

std::size_t client::in_flight() const noexcept { return impl_->ctx.in_flight; }

net::awaitable<std::string> client::get(std::string path) {
    auto [status, body] = co_await setup_call(impl_->ctx, http::verb::get, path, {});
    if (status != 200) throw std::runtime_error("GET " + path + ": HTTP " + std::to_string(status));
    co_return body;
}

net::awaitable<std::pair<int, std::string>> client::post(std::string path, std::string json_body) {
    co_return co_await setup_call(impl_->ctx, http::verb::post, std::move(path), std::move(json_body));
}

const error_messages& client::messages() const { return impl_->ctx.messages; }

}  // namespace openloop
