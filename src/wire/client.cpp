#include "openloop/wire/client.hpp"

#include "client_impl.hpp"

#include "openloop/base/clock.hpp"

#include <boost/asio/this_coro.hpp>
#include <boost/beast/http.hpp>

#include <stdexcept>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

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

client::impl::impl(client& o, net::io_context& ctx, client_options options)
    : owner(o), io(ctx), opt(std::move(options)), connect(ctx, opt), sweep(ctx, sweep_period),
      read_buffer(std::make_unique<char[]>(shared_read_bytes)), refresh(ctx) {}

// A server may quote what it was sent ("Incorrect API key provided:
// sk-..."): header values (the API key among them) never reach results.
void client::impl::note(error_class cls, int status, std::string message) {
    for (const auto& [name, value] : opt.headers) {
        std::string_view secret = value;
        if (secret.starts_with("Bearer ")) secret.remove_prefix(7);
        if (secret.size() < 8) continue;
        for (auto at = message.find(secret); at != std::string::npos; at = message.find(secret, at))
            message.replace(at, secret.size(), "[redacted]");
    }
    messages.note(cls, status, message);
}

namespace {

// A setup call on a connection of its own: the status and body of any
// answer, or an exception naming the call when there was none.
net::awaitable<std::pair<int, std::string>> setup_call(client::impl& i, http::verb verb, std::string path,
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
    owner.emit(event::started(job.index, job.intended_ns, job.request.input_tokens, job.request.max_tokens, job.flags));
    if (job.released_ns >= 0) owner.emit(event::release(job.index, job.released_ns));
    ++in_flight;
    worker* w = closing ? nullptr : take_idle();
    if (!w) {
        w = &workers.emplace_front(io, decoder);
        w->self = workers.begin();
        w->job.emplace(std::move(job));
        if (closing) {
            // Aborted before it began: nothing is there to cancel.
            exchange_result aborted;
            aborted.failure = error_class::cancelled;
            end(*w, aborted);
            forget(*w);
            return;
        }
        start(*w);
        return;
    }
    // Written here, in the scheduler's own loop, rather than when the worker
    // resumes behind whatever reads are queued: requests due together, or
    // a few microseconds apart, leave that close on the wire.
    write_now(*w, job);
    w->job.emplace(std::move(job));
    w->wake.cancel();
}

void client::impl::start(worker& w) {
    owner.requests_.spawn(work(w), [](std::exception_ptr e) {
        if (e) std::fprintf(stderr, "openloop: a connection failed: %s\n", cancel_group::describe(e).c_str());
    });
}

void client::impl::end(worker& w, const exchange_result& r) {
    request_job& j = *w.job;
    if (w.timed) {
        sweep.remove(w.clock);
        w.timed = false;
    }
    if (r.failure != error_class::none) {
        owner.emit(event::failure(j.index, steady_now_ns(), r.failure, r.status));
        // Cancellations are openloop's own doing: nothing the server said.
        if (r.failure != error_class::cancelled) note(r.failure, r.status, r.message);
    }
    --in_flight;
    // A completed answer ended at the read that completed it, the time requests.jsonl logs (a
    // session's next turn counts from it); the body's last bytes may come a read later.
    const std::int64_t end_ns = r.failure == error_class::none && r.answered_ns > 0 ? r.answered_ns : steady_now_ns();
    finished_request f{j.index, j.intended_ns, j.flags, request_end{r.failure, r.status, end_ns}, std::move(j.request)};
    run_waiter* waiter = j.waiter;
    w.job.reset();
    if (waiter) {
        waiter->result = f.end;
        waiter->done = true;
        waiter->timer.cancel();
    } else if (on_end) {
        on_end(f);
    }
}

bool client::impl::stale(const worker& w, std::int64_t now) const {
    return opt.keep_alive_idle.count() > 0 &&
           now - w.idle_since_ns > std::chrono::nanoseconds(opt.keep_alive_idle).count();
}

// The freshest parked connection that is still within its idle budget and
// still open, or null; the ones passed over are closed.
worker* client::impl::take_idle() {
    if (wanted_soon > 0) --wanted_soon;
    const std::int64_t now = steady_now_ns();
    while (!idle.empty()) {
        worker* w = idle.back();
        idle.pop_back();
        if (stale(*w, now)) {
            retire(*w);
            continue;
        }
        if (!w->conn->peer_gone()) return w;
        if (w->conn->served && now - w->idle_since_ns < 1'000'000'000 && ++closed_after_answer >= 3 && reused_ok == 0)
            reuse = false;
        retire(*w);
    }
    return nullptr;
}

void client::impl::park(worker& w) {
    w.idle_since_ns = steady_now_ns();
    idle.push_back(&w);
}

// w's coroutine closes its connection and ends.
void client::impl::retire(worker& w) {
    w.stop = true;
    w.wake.cancel();
}

void client::impl::forget(worker& w) {
    std::erase(idle, &w);
    workers.erase(w.self);
}

void client::impl::keep_spares() {
    const std::size_t target = std::max<std::size_t>(opt.spare_connections, wanted_soon);
    while (!closing && idle.size() + opening < target) {
        ++opening;
        worker& w = workers.emplace_front(io, decoder);
        w.self = workers.begin();
        w.spare = true;
        start(w);
    }
}

// Closes pooled connections past their idle budget and opens fresh spares
// in their place, so that a quiet spell does not leave the next send with
// only connections the server is about to close.
void client::impl::schedule_refresh() {
    if (closing || opt.keep_alive_idle.count() <= 0) return;
    refresh.expires_after(std::max(opt.keep_alive_idle / 4, std::chrono::milliseconds(10)));
    refresh.async_wait([this](const boost::system::error_code& ec) {
        if (ec || closing) return;
        const std::int64_t now = steady_now_ns();
        std::erase_if(idle, [&](worker* w) {
            if (!stale(*w, now)) return false;
            retire(*w);
            return true;
        });
        keep_spares();
        schedule_refresh();
    });
}

client::client(net::io_context& io, client_options options, spsc_ring<event>& ring)
    : impl_(std::make_unique<impl>(*this, io, std::move(options))), requests_(io), ring_(ring) {}

client::~client() = default;

void client::setup() { impl_->connect.setup(); }

net::awaitable<void> client::open_spare(std::size_t n) {
    impl_->wanted_soon = std::max(impl_->wanted_soon, n);
    impl_->keep_spares();
    // Until they are open (or failed), so the first requests find them.
    steady_timer poll(impl_->io);
    while (impl_->opening > 0 && !impl_->closing) {
        poll.expires_after(std::chrono::milliseconds(1));
        co_await poll.async_wait();
    }
    impl_->wanted_soon = 0;
    impl_->schedule_refresh();
}

void client::want_connections(std::size_t n) {
    impl_->wanted_soon = n;
    impl_->keep_spares();
}

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

void client::on_end(std::function<void(finished_request&)> handler) { impl_->on_end = std::move(handler); }

net::awaitable<request_end> client::run(std::uint64_t index, prepared_request req, std::int64_t intended_ns,
                                        std::int64_t flags) {
    co_await net::this_coro::throw_if_cancelled(false);
    run_waiter waiter(impl_->io);
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
    co_return waiter.result;
}

void client::emit(const event& e) noexcept {
    if (!ring_.try_push(e)) lost_.fetch_add(1, std::memory_order_relaxed);
}

void client::close_all() {
    impl_->closing = true;
    impl_->refresh.cancel();
    for (worker* w : impl_->idle) impl_->retire(*w);
    impl_->idle.clear();
    requests_.cancel_all();
}

std::size_t client::in_flight() const noexcept { return impl_->in_flight; }

net::awaitable<std::string> client::get(std::string path) {
    auto [status, body] = co_await setup_call(*impl_, http::verb::get, path, {});
    if (status != 200) throw std::runtime_error("GET " + path + ": HTTP " + std::to_string(status));
    co_return body;
}

net::awaitable<std::pair<int, std::string>> client::post(std::string path, std::string json_body) {
    co_return co_await setup_call(*impl_, http::verb::post, std::move(path), std::move(json_body));
}

const error_messages& client::messages() const { return impl_->messages; }

}  // namespace openloop
