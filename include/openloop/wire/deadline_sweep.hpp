#pragma once
// The timeouts of the requests in flight, enforced by one sweep rather than a
// timer per request: re-arming a socket's timer on every read reprogrammed the
// kernel's timerfd twice per request, a quarter of the io thread's kernel time
// at 7,000 req/s. A request keeps its next deadline in a request_clock (a
// plain store per read); every sweep period one timer looks at all of them
// and cancels the socket of each that is past due, so a timeout fires at most
// one period late. The list is intrusive: nothing is allocated per request.

#include "openloop/base/executor.hpp"
#include "openloop/measure/event.hpp"

#include <chrono>
#include <cstdint>
#include <limits>

namespace openloop {

struct request_clock {
    std::int64_t at_ns = std::numeric_limits<std::int64_t>::max();  // fails past this, steady clock
    error_class cls = error_class::io;                                // as what
    bool fired = false;
    tcp_stream* stream = nullptr;  // cancelled when it fires; null: nothing to cancel yet
    request_clock* prev = nullptr;
    request_clock* next = nullptr;
};

// The clocks past due at now_ns, in list order, each marked fired once.
// Pure: the sweep's rule, for the unit tests.
template <class OnDue>
void fire_due(request_clock* first, std::int64_t now_ns, OnDue&& on_due) {
    for (request_clock* c = first; c != nullptr; c = c->next) {
        if (c->fired || c->at_ns > now_ns) continue;
        c->fired = true;
        on_due(*c);
    }
}

class deadline_sweep {
public:
    deadline_sweep(boost::asio::io_context& io, std::chrono::milliseconds period);
    deadline_sweep(const deadline_sweep&) = delete;
    deadline_sweep& operator=(const deadline_sweep&) = delete;

    void add(request_clock& c);
    void remove(request_clock& c);
    std::chrono::milliseconds period() const { return period_; }

private:
    void arm();

    steady_timer timer_;
    std::chrono::milliseconds period_;
    request_clock* first_ = nullptr;
    bool armed_ = false;
};

}  // namespace openloop
