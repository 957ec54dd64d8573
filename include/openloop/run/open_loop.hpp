#pragma once
// The open loop: requests sent at their arrival schedule's times whatever the
// server does; built ahead in send_queue, in the slack before the next send,
// refused past --max-inflight, waiting their turn past --max-concurrency.

#include "openloop/base/executor.hpp"
#include "openloop/base/fifo.hpp"
#include "openloop/load/arrival.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/request_builder.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/scheduler.hpp"
#include "openloop/run/send_queue.hpp"

#include <boost/asio.hpp>

namespace openloop {

class open_loop final : public scheduler {
public:
    open_loop(const run_plan& plan, boost::asio::io_context& io, client& cl, request_builder& requests,
              scheduler_host& host);

    void start(steady::time_point origin) override;
    void stop() override;
    void request_ended(finished_request& f) override;
    std::size_t waiting() const override { return waiting_.size(); }
    const offered_load& offered() const override { return offered_; }

private:
    boost::asio::awaitable<void> run();
    bool prepare_next(arrival_process& arrivals, shard_walk& walk, send_queue& queue);
    void release_waiting();
    void drop_waiting();

    const run_options& o_;  // the plan's
    const schedule_bounds bounds_;
    boost::asio::io_context& io_;
    client& client_;
    workload& workload_;  // the plan's
    request_builder& requests_;
    scheduler_host& host_;
    steady_timer timer_;
    steady::time_point origin_;
    request_spec spec_;  // each request's prompt before its body is built: the memory is reused
    // --max-concurrency: arrivals waiting for a request to end, oldest first; offset_ns holds
    // each one's intended send time.
    fifo<queued_request> waiting_;
    bool schedule_ended_ = false;  // the schedule is over but requests still wait
    bool stopping_ = false;
    offered_load offered_;
};

}  // namespace openloop
