#pragma once
// The simulator's answers to what it generates for: completions, chat
// completions, Responses and transcription requests (parsed, faults picked and quirks
// applied; the body written by completion_body) and embeddings requests, each
// decoded by the engine in real time (engine_runner) and written to the
// request log.
// http_server routes the requests here; defined for plain and TLS streams.

#include "openloop/base/executor.hpp"
#include "openloop/sim/completion_body.hpp"
#include "openloop/sim/config.hpp"
#include "openloop/sim/engine_runner.hpp"
#include "openloop/sim/metrics.hpp"
#include "openloop/sim/misbehaviour.hpp"
#include "openloop/sim/request_log.hpp"

#include <boost/asio/awaitable.hpp>

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

class completion_handler {
public:
    // Opens the request log (throws std::runtime_error when it cannot).
    completion_handler(const sim_config& cfg, engine_runner& runner, sim_counters& counters);

    // path: /v1/chat/completions, /v1/completions, /v1/responses or
    // /v1/audio/transcriptions (a multipart form: transcription_form). Each
    // returns whether the connection may serve another request.
    template <class Stream>
    boost::asio::awaitable<bool> complete(Stream& stream, const sim_http_request& req, std::string_view path,
                                          std::int64_t first_byte_ns);
    // One prefill pass through the engine (its single output token
    // discarded), then the whole answer. Faults are not injected.
    template <class Stream>
    boost::asio::awaitable<bool> embed(Stream& stream, const sim_http_request& req, std::int64_t first_byte_ns);

    void flush_log() { log_.flush(); }
    const std::string& model_json() const { return model_json_; }  // the served model's name as JSON
    std::int64_t started_unix() const { return started_unix_; }

private:
    const sim_config& cfg_;
    engine_runner& runner_;
    sim_counters& counters_;
    leak_store leaks_;
    sim_request_log log_;
    std::string model_json_;
    std::uint64_t next_id_ = 1;
    std::uint64_t completion_index_ = 0;
    std::int64_t started_ns_;
    std::int64_t started_unix_;
};

}  // namespace openloop
