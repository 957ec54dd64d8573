#include "openloop/run/run_plan.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/load/session.hpp"
#include "openloop/load/trace_sessions.hpp"
#include "openloop/load/workload.hpp"
#include "openloop/run/layer_options.hpp"

namespace openloop {

std::shared_ptr<const session_plan> sessions_of(const run_options& o, const workload& w) {
    const auto& entries = w.trace_entries();
    if (!o.trace_sessions || o.sessions || o.workload.trace_lengths_only || !has_session_ids(entries))
        return o.sessions;
    const std::string& file = o.workload.trace_file;
    const auto refuse = [&](const std::string& why) {
        throw input_error(file + ": its rows carry session ids, so they replay as conversations, which " + why);
    };
    if (o.endpoint != endpoint_kind::chat) refuse("need --endpoint chat (a session's history is a list of messages)");
    if (!o.stream) refuse("stream their answers: drop --no-stream");
    if (o.concurrency > 0 || o.max_concurrency > 0)
        refuse("arrive at the trace's times: drop --concurrency / --max-concurrency (bound with --max-inflight)");
    session_config traced;
    traced.seed = o.workload.seed;
    traced.tool_steps = o.tools.enabled() ? o.tools.max_steps : 0;
    traced.traced = std::make_shared<trace_sessions>(group_trace_sessions(entries, max_session_turns, file));
    return std::make_shared<const session_plan>(traced);
}

run_plan::run_plan(run_options options, std::shared_ptr<const preparation> prepared, std::shared_ptr<workload> w,
                   std::shared_ptr<const session_plan> sessions)
    : options_(std::move(options)),
      prepared_(std::move(prepared)),
      workload_(w ? std::move(w) : std::make_shared<workload>(options_.workload)),
      sessions_(sessions ? std::move(sessions) : sessions_of(options_, *workload_)) {
    workload_->set_prompt_builder(prepared_->prompts);
    client_ = client_options_for(options_);
    bodies_ = body_options_for(options_, prepared_->media);
    reporter_ = reporter_options_for(options_, prepared_->models, sessions_.get());
}

std::string run_plan::api_base() const { return openloop::api_base(client_.target); }

}  // namespace openloop
