#pragma once
// The io thread's side of one run, for runner.cpp: starts the load mode's
// scheduler (scheduler.hpp) at the schedule's origin and owns what every mode
// shares: Ctrl-C and its grace (a second Ctrl-C aborts), the drain limit after
// the last send, the overload and sweep-stage watches, failing fast, and one
// stop(cause) that each of them ends the run with.

#include "openloop/base/clock.hpp"
#include "openloop/base/executor.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/fail_fast.hpp"
#include "openloop/run/request_builder.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/runner.hpp"
#include "openloop/run/scheduler.hpp"
#include "openloop/run/stage_end.hpp"
#include "openloop/run/start_clock.hpp"
#include "openloop/wire/client.hpp"

#include <boost/asio.hpp>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace openloop {

class run_driver final : private scheduler_host {
public:
    // signals: the run's SIGINT/SIGTERM set, made before its setup so no signal is lost.
    // Throws std::runtime_error for a bad --extra-body (request_body.hpp).
    run_driver(const run_plan& plan, boost::asio::io_context& io, client& cl, boost::asio::signal_set& signals);

    // A signal stopped the setup: start() sends nothing and the run ends at once, interrupted.
    void stop_before_start();
    // The schedule starts at clock's origin (start_clock.hpp); io.run() then runs the run.
    void start(const start_clock& clock);

    bool interrupted() const { return interrupted_; }
    bool overloaded() const { return overloaded_; }
    // Empty unless the run stopped early (fail_fast.hpp): then why.
    const std::string& stop_reason() const { return stop_reason_; }
    bool stage_undecided() const { return stage_end_ && !stage_end_->decided(); }
    double stage_window_s() const { return stage_window_s_; }
    // Measured requests per second of schedule: what a trace replay offered.
    double offered_rate() const { return scheduler_ ? scheduler_->offered().rate() : 0.0; }
    double drain_s() const { return drain_s_; }

private:
    enum class stop_cause { signal, overload, fail_fast };
    // Nothing more is sent; then, by cause: the grace for what is in flight
    // (signal), everything in flight cancelled now (overload) or once the
    // request that tripped the rule has returned (fail_fast).
    void stop(stop_cause cause);

    std::unique_ptr<scheduler> make_scheduler();
    void sent() override;
    void ended(std::int64_t from_ns, request_end end) override;
    bool stage_done(std::int64_t window_ns, std::uint64_t measured) override;
    void arrivals_over() override;
    void schedule_done() override;
    void request_ended(finished_request& f);
    boost::asio::awaitable<void> watch_overload();
    boost::asio::awaitable<void> watch_stage();
    void arm_drain();
    void drain_over();
    void maybe_finish();
    void on_signal(const boost::system::error_code& ec);

    const run_plan& plan_;
    const run_options& o_;  // the plan's
    boost::asio::io_context& io_;
    client& client_;
    request_builder requests_;
    steady_timer grace_;  // Ctrl-C's grace, or the drain's limit
    boost::asio::signal_set& signals_;
    std::unique_ptr<scheduler> scheduler_;  // made at start()
    std::optional<stage_end> stage_end_ = o_.stage_end ? std::optional<stage_end>(*o_.stage_end) : std::nullopt;
    double stage_window_s_ = 0;
    double drain_s_ = 0;  // the drain limit armed; 0: none (nothing was left in flight, or Ctrl-C)
    // What the default drain is computed from: the first send, and the longest E2E of the
    // requests that ended, from their (intended) send time.
    std::int64_t first_send_ns_ = 0;
    std::int64_t longest_ns_ = 0;
    bool scheduling_ = true;
    bool stopping_ = false;
    bool interrupted_ = false;
    bool overloaded_ = false;
    bool finished_ = false;
    fail_fast fail_fast_;
    std::string stop_reason_;
};

}  // namespace openloop
