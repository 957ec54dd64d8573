#pragma once
// The closed loop (--concurrency N): N workers, each sending its next request
// when its last one ended, from the schedule's origin until the run's bounds.

#include "openloop/base/executor.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/request_builder.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/scheduler.hpp"

#include <boost/asio.hpp>

namespace openloop {

class closed_loop final : public scheduler {
public:
    closed_loop(const run_plan& plan, boost::asio::io_context& io, client& cl, request_builder& requests,
                scheduler_host& host);

    void start(steady::time_point origin) override;
    void stop() override;

private:
    boost::asio::awaitable<void> worker();
    void worker_ended();

    const run_options& o_;  // the plan's
    const schedule_bounds bounds_;
    client& client_;
    workload& workload_;  // the plan's
    request_builder& requests_;
    scheduler_host& host_;
    steady_timer timer_;  // until the origin
    steady::time_point origin_;
    request_spec spec_;  // each request's prompt before its body is built: the memory is reused
    std::uint64_t next_index_ = 0;  // this shard's requests begun
    std::uint64_t measured_ = 0;
    int workers_ = 0;
    bool stopping_ = false;
};

}  // namespace openloop
