#pragma once
// A completion's answer, once completion_handler has parsed the request,
// picked its fault and handed it to the engine: written as an SSE stream (a
// batch of events per engine step, the fault injected half-way, the usage and
// the end as the request and the quirks ask) or as one JSON body once the
// engine decoded all of it. Defined for plain and TLS streams.

#include "openloop/base/executor.hpp"
#include "openloop/sim/answer_plan.hpp"
#include "openloop/sim/config.hpp"
#include "openloop/sim/engine_runner.hpp"
#include "openloop/sim/event_writer.hpp"
#include "openloop/sim/faults.hpp"
#include "openloop/sim/openai_api.hpp"
#include "openloop/sim/request_log.hpp"
#include "openloop/sim/responses_writer.hpp"

#include <boost/asio/awaitable.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <cstdint>
#include <string_view>

namespace openloop {

// One completion being answered: what was asked, how it is answered, and how far.
struct completion_answer {
    explicit completion_answer(const io_executor& ex) : lr(ex) {}

    completion_request r;
    log_record rec;
    live_request lr;  // the engine's side of it
    fault f = fault::none;
    std::uint64_t h = 0;   // the seed of its words
    std::uint64_t think_h = 0;  // the seed of its thinking's words
    std::uint64_t id = 0;  // its sequence in the engine
    answer_plan plan;      // thinking, then text or a tool call
    int n = 0;             // tokens to generate, thinking included
    int sent = 0;          // tokens written
    bool chat = false, responses = false, length = false, firehose = false;
    bool transcription = false;  // /v1/audio/transcriptions: chat's chunks as transcription.chunk, or {"text"}
    std::string_view finish;
    event_writer w;
    responses_writer rw;
};

using sim_http_request = boost::beast::http::request<boost::beast::http::string_body>;

// Each returns false when the client went away or the fault cut the answer
// (a.rec's outcome says which); a.sent counts the tokens written.
template <class Stream>
boost::asio::awaitable<bool> write_streamed_answer(Stream& stream, const sim_http_request& req, completion_answer& a,
                                                   const sim_config& cfg);
// started_unix: the non-streamed answer's "created".
template <class Stream>
boost::asio::awaitable<bool> write_whole_answer(Stream& stream, const sim_http_request& req, completion_answer& a,
                                                const sim_config& cfg, std::int64_t started_unix);

}  // namespace openloop
