#pragma once
// Each layer's own options, built once per run by its plan (run_plan.hpp) from
// the options and what preparation found, one function each: the client's
// (wire/), the reporter's (measure/) and the request bodies'. What only the
// running run knows (its start on the clock, the ring's lost events, the
// trace's entries, the server watch) the runner adds to the reporter's.

#include "openloop/load/media.hpp"
#include "openloop/load/model_mix.hpp"
#include "openloop/load/session.hpp"
#include "openloop/measure/reporter.hpp"
#include "openloop/run/request_body.hpp"
#include "openloop/run/runner.hpp"
#include "openloop/wire/client_options.hpp"
#include "openloop/wire/target.hpp"

#include <memory>
#include <string>

namespace openloop {

// The API's base path: the target's, or /v1 when it gave none.
std::string api_base(const target_url& target);

// Where and how the client sends: o.target (resolved by the caller), the
// endpoint's path, the headers with the key of o.api_key_env as a Bearer
// token when it is set, TLS, timeouts and limits; a closed loop keeps no spare
// connections, an open one at most max_inflight.
client_options client_options_for(const run_options& o);

// How every request's body is made: endpoint, streaming, sampling,
// --extra-body, and the media set the preparation built (null: none).
body_options body_options_for(const run_options& o, std::shared_ptr<const media_set> media);

// What the run's options decide of the reporter: files, progress, SLOs,
// windows, whether requests generate; the served models of a mixed run and a
// sessions run's index stride (sessions null: none).
reporter_options reporter_options_for(const run_options& o, const model_mix& models, const session_plan* sessions);

}  // namespace openloop
