#include "openloop/run/closed_loop.hpp"

#include "openloop/measure/event.hpp"
#include "openloop/run/runner.hpp"

namespace openloop {

namespace net = boost::asio;

closed_loop::closed_loop(const run_plan& plan, net::io_context& io, client& cl, request_builder& requests, scheduler_host& host)
    : o_(plan.options()), bounds_(bounds_of(o_)), client_(cl), workload_(plan.load()), requests_(requests), host_(host), timer_(io) {}

void closed_loop::start(steady::time_point origin) {
    origin_ = origin;
    workers_ = o_.concurrency;
    timer_.expires_at(origin_);
    // Stopped before the origin, the workers still start: each ends at once.
    timer_.async_wait([this](const boost::system::error_code&) {
        for (int i = 0; i < o_.concurrency; ++i) {
            client_.spawn(worker(), [this](std::exception_ptr e) {
                if (!e) return;
                report_escape("a closed-loop worker", e);
                worker_ended();
            });
        }
    });
}

void closed_loop::stop() {
    stopping_ = true;
    timer_.cancel();
}

// Each worker sends its next request when the last one ends. A shard's requests are every
// count-th of the global indexes, so the shards' ids and contents never collide.
net::awaitable<void> closed_loop::worker() {
    const auto count = static_cast<std::uint64_t>(o_.shard.count), first = static_cast<std::uint64_t>(o_.shard.index);
    while (!stopping_) {
        const std::int64_t offset = to_ns(steady::now()) - to_ns(origin_);
        const std::uint64_t index = next_index_ * count + first;
        const bool warm = bounds_.is_warmup(offset, index);
        if (!warm && bounds_.past(offset, measured_ * count + first)) break;
        ++next_index_;
        if (!warm) ++measured_;
        workload_.at(index, spec_);
        spec_.model = requests_.model_of(index);
        prepared_request p = requests_.build(spec_, index);
        const std::int64_t sent = to_ns(steady::now());
        host_.sent();
        finished_request f = co_await client_.run(index, std::move(p), sent, warm ? std::int64_t{flag_warmup} : 0);
        host_.ended(sent, f.end);
        requests_.recycle(f.request);
    }
    worker_ended();
}

// The last worker to end ends the schedule.
void closed_loop::worker_ended() {
    if (--workers_ == 0) host_.schedule_done();
}

}  // namespace openloop
