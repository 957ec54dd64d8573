#pragma once
// The session loop (--turns, a trace's conversations): sessions arrive on
// the arrival schedule (open loop), and inside each, turn k + 1 is due its
// think time after turn k's answer ended (closed loop), carrying the whole
// conversation so far with the assistant's actual answers. Each turn's clock
// starts at that intended time, so a generator that sends it late shows lag.
// A trace's sessions (trace_sessions.hpp) arrive at their first rows' times,
// and a later turn is due at its row's time or its answer's end, the later.
// With --tools, an answer that calls a tool is followed, --tool-latency after
// it, by a request carrying the call and the tool's result (an agent's step),
// up to --max-tool-steps per turn, before the next user turn.

#include "openloop/base/executor.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/request_builder.hpp"
#include "openloop/run/run_plan.hpp"
#include "openloop/run/scheduler.hpp"
#include "openloop/wire/chunk.hpp"

#include <boost/asio.hpp>

#include <list>
#include <string>
#include <vector>

namespace openloop {

class session_loop final : public scheduler {
public:
    session_loop(const run_plan& plan, boost::asio::io_context& io, client& cl, request_builder& requests,
                 scheduler_host& host);

    // Tells the host arrivals_over() once the last session arrived with some still going.
    void start(steady::time_point origin) override;
    // Ctrl-C, an overload, failing fast, --drain after the last arrival: no
    // turn is sent any more, and a session thinking now ends now (cut); turns
    // in flight end as the run lets them.
    void stop() override;

private:
    // A session's memory, reused by the next session once it ends.
    struct slot {
        explicit slot(boost::asio::io_context& io) : timer(io) {}
        conversation history;
        streamed_answer answer;
        steady_timer timer;
    };
    // Where a session is: its requests so far (the next one's place in its index), the last
    // answer's end, the conversation's tokens as asked, its requests' flags, how it ended.
    struct chain {
        std::uint64_t id = 0;
        int sent = 0;
        std::int64_t end = 0;
        std::int64_t history_tokens = 0;  // the answers counted at the length asked until they come
        std::int64_t asked = 0;           // the last request's max_tokens
        std::int64_t flags = 0;
        std::uint8_t how = 0;
        std::uint8_t model = 0;  // its first turn's, kept for all its requests
    };

    std::int64_t origin_ns() const { return to_ns(origin_); }
    boost::asio::awaitable<void> arrivals();
    boost::asio::awaitable<void> session(slot& s, std::uint64_t id, std::int64_t first_intended, bool warm);
    boost::asio::awaitable<bool> tool_steps(slot& s, chain& c);
    // repeated: tokens of spec_.input_tokens the conversation already holds (the system
    // prompt's, which a built message's first word carries and a later turn sends once).
    prepared_request prepare(slot& s, chain& c, int repeated = 0);
    boost::asio::awaitable<bool> send(prepared_request p, std::uint64_t index, std::int64_t intended, chain& c);
    bool keep_answer(slot& s, chain& c);
    std::int64_t row_ns(std::uint64_t id, int turn) const;
    slot& take_slot();
    void maybe_done();

    const run_options& o_;  // the plan's
    const schedule_bounds bounds_;
    const session_plan& plan_;  // the run plan's
    const int tools_prompt_tokens_;  // in every turn's intended input
    boost::asio::io_context& io_;
    client& client_;
    workload& workload_;  // the run plan's
    request_builder& requests_;
    scheduler_host& host_;
    steady_timer timer_;
    steady::time_point origin_;
    request_spec spec_;
    std::list<slot> slots_;  // a list: sessions hold references to their slots
    std::vector<slot*> free_;
    std::size_t live_ = 0;
    bool arrivals_done_ = false;
    bool stopping_ = false;
    bool reported_ = false;
    std::uint64_t capped_ = 0;  // user turns cut at --max-tool-steps
};

}  // namespace openloop
