#pragma once
// A run settled before its schedule, as MLPerf LoadGen resolves its settings
// once: the options as the command resolved them, what preparation found
// (prepare.hpp: the server's model, how lengths become prompts on it, the
// tools' prompt tokens, the media set), and what is made of both before the
// first request (the workload, a trace's conversations, each layer's own
// options). Afterwards it is only read: the driver, the schedulers, the request
// builder, the client and the reporter take what they need from it. A sweep's
// stages share one preparation, each with its own options (with_options).

#include "openloop/load/model_mix.hpp"
#include "openloop/load/prompt_builder.hpp"
#include "openloop/measure/reporter.hpp"
#include "openloop/run/request_body.hpp"
#include "openloop/run/runner.hpp"
#include "openloop/wire/client_options.hpp"

#include <memory>
#include <string>

namespace openloop {

class media_set;
class session_plan;
class workload;

// What a command's preparation found and made, shared by each of its runs.
struct preparation {
    std::string model;         // the model requests name: --model's first, or the server's first id
    model_mix models;          // --model's mix, or that one model
    prompt_builder prompts;    // lengths -> prompts on this server
    std::string tokenizer;     // how, in words: run.json's and summary.json's label
    int tools_prompt_tokens = 0;  // the tools' share of every prompt, as the server counts it
    std::shared_ptr<const media_set> media;  // made ahead; null when none is asked
    // Non-empty when a signal came before the schedule: the run then sends nothing.
    std::string interrupted;
};

// --turns' sessions, or the conversations of a trace whose rows carry session
// ids, grouped here; null: single requests. Throws input_error where a trace's
// sessions cannot go (a bad flag refused before the server is asked anything).
std::shared_ptr<const session_plan> sessions_of(const run_options& o, const workload& w);

class run_plan {
public:
    // The plan of a run of options on prepared: the workload is w, or made here
    // from options; the sessions are these, or sessions_of(options, workload).
    run_plan(run_options options, std::shared_ptr<const preparation> prepared, std::shared_ptr<workload> w = nullptr,
             std::shared_ptr<const session_plan> sessions = nullptr);

    // The same preparation under another run's options (a sweep's stage).
    run_plan with_options(run_options other) const { return run_plan(std::move(other), prepared_); }

    const run_options& options() const { return options_; }
    const preparation& prepared() const { return *prepared_; }
    bool interrupted() const { return !prepared_->interrupted.empty(); }
    // --turns' sessions or a trace's conversations; null: single requests.
    const session_plan* sessions() const { return sessions_.get(); }
    // Each request's content. Its memory is reused as it builds them: one run at a time.
    workload& load() const { return *workload_; }
    // Each layer's own options, made once from the options and the preparation.
    const client_options& client() const { return client_; }
    const body_options& bodies() const { return bodies_; }
    // What only the running run knows (its start, its ring, the server watch) the runner adds.
    const reporter_options& reporter() const { return reporter_; }
    // The API's base path: the target's, or /v1 when it gave none.
    std::string api_base() const;

private:
    run_options options_;
    std::shared_ptr<const preparation> prepared_;
    std::shared_ptr<workload> workload_;
    std::shared_ptr<const session_plan> sessions_;
    client_options client_;
    body_options bodies_;
    reporter_options reporter_;
};

}  // namespace openloop
