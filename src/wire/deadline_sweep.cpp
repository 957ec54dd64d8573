#include "openloop/wire/deadline_sweep.hpp"

#include "openloop/base/clock.hpp"

namespace openloop {

deadline_sweep::deadline_sweep(boost::asio::io_context& io, std::chrono::milliseconds period)
    : timer_(io), period_(period) {}

void deadline_sweep::add(request_clock& c) {
    c.prev = nullptr;
    c.next = first_;
    if (first_) first_->prev = &c;
    first_ = &c;
    if (!armed_) arm();
}

void deadline_sweep::remove(request_clock& c) {
    if (c.prev) {
        c.prev->next = c.next;
    } else if (first_ == &c) {
        first_ = c.next;
    }
    if (c.next) c.next->prev = c.prev;
    c.prev = c.next = nullptr;
}

// While any request is in flight; an idle client wakes for nothing.
void deadline_sweep::arm() {
    armed_ = true;
    timer_.expires_after(period_);
    timer_.async_wait([this](const boost::system::error_code& ec) {
        armed_ = false;
        if (ec) return;
        fire_due(first_, steady_now_ns(), [](request_clock& c) {
            if (!c.stream) return;
            boost::system::error_code ignored;
            c.stream->socket().cancel(ignored);
        });
        if (first_) arm();
    });
}

}  // namespace openloop
