#include "connection_pool.hpp"

#include "openloop/base/clock.hpp"

#include <algorithm>
#include <cstdio>

namespace openloop {

connection_pool::connection_pool(client_context& ctx, cancel_group& spawner)
    : ctx_(ctx), spawner_(spawner), refresh_(ctx.io) {}

bool connection_pool::stale(const connection_worker& w, std::int64_t now) const {
    return ctx_.opt.keep_alive_idle.count() > 0 &&
           now - w.idle_since_ns() > std::chrono::nanoseconds(ctx_.opt.keep_alive_idle).count();
}

connection_worker* connection_pool::take() {
    if (wanted_soon_ > 0) --wanted_soon_;
    const std::int64_t now = steady_now_ns();
    while (!idle_.empty()) {
        connection_worker* w = idle_.back();
        idle_.pop_back();
        if (stale(*w, now)) {
            w->retire();
            continue;
        }
        if (!w->peer_gone()) return w;
        if (w->served() && now - w->idle_since_ns() < 1'000'000'000 && ++closed_after_answer_ >= 3 && reused_ok_ == 0)
            reuse_ = false;
        w->retire();
    }
    return nullptr;
}

void connection_pool::start(connection_worker& w) {
    spawner_.spawn(w.run(), [](std::exception_ptr e) {
        if (e) std::fprintf(stderr, "openloop: a connection failed: %s\n", cancel_group::describe(e).c_str());
    });
}

void connection_pool::open_for(request_job job) {
    connection_worker& w = workers_.emplace_front(ctx_, *this, std::move(job));
    w.self_ = workers_.begin();
    start(w);
}

void connection_pool::park(connection_worker& w) {
    w.idle_since_ns_ = steady_now_ns();
    idle_.push_back(&w);
}

void connection_pool::forget(connection_worker& w) {
    std::erase(idle_, &w);
    workers_.erase(w.self_);
}

void connection_pool::keep_spares() {
    const std::size_t target = std::max<std::size_t>(ctx_.opt.spare_connections, wanted_soon_);
    while (!ctx_.closing && idle_.size() + opening_ < target) {
        ++opening_;
        connection_worker& w = workers_.emplace_front(ctx_, *this, std::nullopt);
        w.self_ = workers_.begin();
        start(w);
    }
}

void connection_pool::want(std::size_t n) {
    wanted_soon_ = n;
    keep_spares();
}

boost::asio::awaitable<void> connection_pool::open_spare(std::size_t n) {
    wanted_soon_ = std::max(wanted_soon_, n);
    keep_spares();
    // Until they are open (or failed), so the first requests find them.
    steady_timer poll(ctx_.io);
    while (opening_ > 0 && !ctx_.closing) {
        poll.expires_after(std::chrono::milliseconds(1));
        co_await poll.async_wait();
    }
    wanted_soon_ = 0;
    schedule_refresh();
}

// Closes pooled connections past their idle budget and opens fresh spares
// in their place, so that a quiet spell does not leave the next send with
// only connections the server is about to close.
void connection_pool::schedule_refresh() {
    if (ctx_.closing || ctx_.opt.keep_alive_idle.count() <= 0) return;
    refresh_.expires_after(std::max(ctx_.opt.keep_alive_idle / 4, std::chrono::milliseconds(10)));
    refresh_.async_wait([this](const boost::system::error_code& ec) {
        if (ec || ctx_.closing) return;
        const std::int64_t now = steady_now_ns();
        std::erase_if(idle_, [&](connection_worker* w) {
            if (!stale(*w, now)) return false;
            w->retire();
            return true;
        });
        keep_spares();
        schedule_refresh();
    });
}

void connection_pool::close() {
    refresh_.cancel();
    for (connection_worker* w : idle_) w->retire();
    idle_.clear();
}

}  // namespace openloop
