#include "openloop/sim/completion_handler.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/random.hpp"
#include "openloop/load/tokens.hpp"
#include "openloop/sim/answer_plan.hpp"
#include "openloop/sim/event_writer.hpp"
#include "openloop/sim/faults.hpp"
#include "openloop/sim/openai_api.hpp"
#include "openloop/sim/response_writer.hpp"
#include "openloop/sim/responses_writer.hpp"
#include "openloop/sim/transcription_form.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>

#include <algorithm>
#include <chrono>
#include <optional>

namespace openloop {

namespace net = boost::asio;
namespace http = boost::beast::http;

completion_handler::completion_handler(const sim_config& cfg, engine_runner& runner, sim_counters& counters)
    : cfg_(cfg),
      runner_(runner),
      counters_(counters),
      leaks_(cfg_.misbehaviour.leak_limit_bytes),
      log_(cfg_.log_path),
      model_json_(boost::json::serialize(boost::json::value(cfg_.served_model_name))),
      started_ns_(steady_now_ns()),
      started_unix_(std::chrono::duration_cast<std::chrono::seconds>(
                        std::chrono::system_clock::now().time_since_epoch()).count()) {}

template <class Stream>
net::awaitable<bool> completion_handler::complete(Stream& stream, const sim_http_request& req, std::string_view path,
                                                  std::int64_t first_byte_ns) {
    completion_answer a(stream.get_executor());
    log_record& rec = a.rec;
    completion_request& r = a.r;
    a.transcription = path == "/v1/audio/transcriptions";
    a.chat = path == "/v1/chat/completions" || a.transcription;
    a.responses = path == "/v1/responses";
    rec.first_byte_ns = first_byte_ns;
    rec.arrival_ns = steady_now_ns();
    rec.endpoint = a.transcription ? "/v1/audio/transcriptions"
                   : a.responses   ? "/v1/responses"
                   : a.chat        ? "/v1/chat/completions"
                                   : "/v1/completions";
    if (auto id = req.find("x-request-id"); id != req.end()) rec.request_id = std::string(id->value());
    if (auto s = req.find("x-session-id"); s != req.end()) rec.session_id = std::string(s->value());
    if (auto t = req.find("traceparent"); t != req.end()) rec.traceparent = std::string(t->value());
    rec.body_bytes = req.body().size();

    const auto content_type = req[http::field::content_type];
    if (auto err = a.transcription ? parse_transcription({content_type.data(), content_type.size()}, req.body(), cfg_, r)
                   : a.responses   ? parse_responses(req.body(), cfg_, r)
                                   : parse_completion(req.body(), a.chat, cfg_, r)) {
        if (cfg_.quirks.error_500 && err->status == http::status::bad_request) {
            err->status = http::status::internal_server_error;
            err->type = "InternalServerError";
        }
        rec.status = static_cast<int>(err->status);
        rec.outcome = "rejected";
        rec.end_ns = steady_now_ns();
        log_.write(rec);
        co_return co_await sim_io::send(stream, req, err->status, error_body(*err));
    }
    // One allocation per request on the io thread: a test server's leak, not a hot path.
    leaks_.leak(cfg_.misbehaviour.leak_bytes_per_request);
    counters_.leaked_bytes = leaks_.bytes();
    counters_.leak_refusals = leaks_.refused();
    const auto& quirks = cfg_.quirks;
    if (quirks.html_200)
        co_return co_await sim_io::send(stream, req, http::status::ok,
                                        "<!DOCTYPE html>\n<html><head><title>Sign in</title></head><body>Sign in to continue"
                                        "</body></html>\n",
                                        "text/html; charset=utf-8");
    if (quirks.no_stream_tools && r.stream && !r.tools.names.empty()) {
        const api_error e{http::status::internal_server_error, "server_error", "Cannot use tools with stream"};
        rec.status = static_cast<int>(e.status);
        rec.outcome = "rejected";
        rec.end_ns = steady_now_ns();
        log_.write(rec);
        co_return co_await sim_io::send(stream, req, e.status, error_body(e));
    }
    if (quirks.ignore_stream) r.stream = false;
    if (quirks.ignore_stream_options) r.include_usage = r.continuous_usage = false;
    if (quirks.always_usage) r.include_usage = true;
    rec.stream = r.stream;
    rec.prompt_tokens = r.prompt_tokens;
    rec.media = r.media;
    rec.model = r.adapter < 0 ? cfg_.served_model_name : cfg_.lora_modules[static_cast<std::size_t>(r.adapter)];
    // The answer names the model asked for, an adapter as vLLM does.
    const std::string model_json = r.adapter < 0 ? model_json_ : boost::json::serialize(boost::json::value(rec.model));
    const std::uint64_t index = completion_index_++;
    a.f = pick_fault(cfg_.faults, cfg_.seed, index);
    rec.injected = a.f;
    ++counters_.faults[static_cast<int>(a.f)];

    if (a.f == fault::slow_first_byte) co_await sim_io::sleep_ms(stream, cfg_.faults.slow_first_byte_ms);
    if (const std::optional<api_error> injected = injected_error(a.f)) {
        const api_error& e = *injected;
        rec.status = static_cast<int>(e.status);
        rec.outcome = "fault";
        rec.end_ns = steady_now_ns();
        log_.write(rec);
        co_return co_await sim_io::send(stream, req, e.status, error_body(e), "application/json",
                                        a.f == fault::http_429 ? cfg_.faults.retry_after_s : -1);
    }

    // Greedy sampling without a seed is a function of the prompt; anything else of the request.
    std::uint64_t prompt_hash = 1;
    for (auto t : r.token_ids) prompt_hash = mix64(prompt_hash ^ t);
    const std::uint64_t h = r.seed ? mix64(static_cast<std::uint64_t>(*r.seed) ^ 0x5eedULL)
                          : r.temperature == 0.0 ? prompt_hash
                                                 : mix64(cfg_.seed ^ mix64(index));
    a.h = h;
    a.think_h = ~h;
    a.plan = plan_answer(cfg_.answers, r, h);
    a.n = a.plan.total();
    a.length = r.ignore_eos || a.n == r.max_tokens;
    a.finish = a.plan.finish(r);
    const std::int64_t created = started_unix_ + (rec.arrival_ns - started_ns_) / 1'000'000'000;

    if (a.responses) {
        a.rw.id = "resp_" + std::to_string(mix64(h ^ index) >> 16);
        a.rw.item_id = "msg_" + std::to_string(mix64(h ^ ~index) >> 16);
        a.rw.model_json = model_json;
        a.rw.created_unix = created;
        a.rw.prompt_tokens = r.prompt_tokens;
        a.rw.reasoning = a.plan.reasoning;
        if (a.plan.reasoning > 0) {
            a.rw.reasoning_id = "rs_" + std::to_string(mix64(a.think_h ^ index) >> 16);
            a.rw.thinking = generated_words(a.think_h, a.plan.reasoning);
        }
    }
    event_writer& w = a.w;
    w.chat = a.chat;
    w.continuous_usage = r.continuous_usage;
    if (quirks.absurd_usage) w.absurd_completion = 2147483647;
    w.prompt_tokens = r.prompt_tokens;
    w.word_state = h;
    w.thinks = a.chat && cfg_.answers.reasoning_tokens.has_value();
    w.shape = cfg_.answers.shape;
    w.older_shape_shares = quirks.thinking_answer_chunk;
    w.reasoning = a.plan.reasoning;
    w.answers = a.plan.answer > 0;
    w.reasoning_state = a.think_h;
    w.tool_call = a.plan.tool_call;
    for (int i = 0; i < a.plan.calls(); ++i)
        w.calls.push_back({tool_call_id((h ^ index) + static_cast<std::uint64_t>(i)),
                           boost::json::serialize(boost::json::value(a.plan.functions[static_cast<std::size_t>(i)])),
                           a.plan.call_first(i), a.plan.call_tokens(i), call_words(h, i)});
    {
        std::string id = (a.transcription ? "trsc-" : a.chat ? "chatcmpl-" : "cmpl-") + std::to_string(mix64(h ^ index) >> 16);
        const char* object = a.transcription ? "transcription.chunk" : a.chat ? "chat.completion.chunk" : "text_completion";
        w.head = R"({"id":")" + id + R"(","object":")" + object +
                 R"(","created":)" + std::to_string(created) + R"(,"model":)" + model_json + R"(,"choices":)";
    }

    a.id = next_id_++;
    a.firehose = cfg_.model.firehose;
    if (a.firehose) {
        counters_.prompt_tokens += r.prompt_tokens;
        ++counters_.streams;
    } else {
        seq_request s{a.id,
                      r.prompt_tokens,
                      a.n,
                      block_hashes(r.token_ids, cfg_.model.block_size),
                      r.media.items(),
                      static_cast<int>(r.media.tokens()),
                      static_cast<int>(r.media.end),
                      r.adapter};
        // As vLLM's, the prefix cache keeps each adapter's blocks apart.
        if (r.adapter >= 0)
            for (auto& b : s.block_hashes) b = mix64(b ^ static_cast<std::uint64_t>(r.adapter + 1));
        runner_.add(a.lr, std::move(s));
    }
    bool ok = false;
    if (r.stream) {
        ok = co_await write_streamed_answer(stream, req, a, cfg_);
    } else {
        ok = co_await write_whole_answer(stream, req, a, cfg_, started_unix_);
    }

    if (a.firehose) {
        --counters_.streams;
        counters_.generated_tokens += a.sent;
    } else {
        runner_.remove(a.id, a.lr);
    }
    if (ok) ++counters_.success;
    rec.completion_tokens = a.sent;
    rec.reasoning_tokens = std::min(a.sent, a.plan.reasoning);
    const int answered = a.sent - rec.reasoning_tokens;
    rec.tool_call = a.plan.tool_call && answered > 0;
    rec.cached_tokens = a.lr.cached_tokens;
    rec.end_ns = steady_now_ns();
    if (cfg_.log_content) {
        // The words are a function of the request's seed: generated again, as they were
        // sent (as for a Responses .done event and a non-streamed answer).
        rec.content = true;
        rec.body = req.body();
        rec.reasoning = generated_words(a.think_h, rec.reasoning_tokens);
        if (rec.tool_call) {
            // The calls streamed so far, each with the arguments it got.
            for (int i = 0; i < a.plan.calls() && a.plan.call_first(i) < answered; ++i)
                rec.tool_calls.push_back({w.calls[static_cast<std::size_t>(i)].id, a.plan.functions[static_cast<std::size_t>(i)],
                                          tool_arguments(call_words(h, i), std::min(answered - a.plan.call_first(i), a.plan.call_tokens(i)),
                                                         a.plan.call_tokens(i))});
        } else {
            rec.output = generated_words(h, answered);
        }
    }
    log_.write(rec);
    co_return ok;
}

template <class Stream>
net::awaitable<bool> completion_handler::embed(Stream& stream, const sim_http_request& req, std::int64_t first_byte_ns) {
    log_record rec;
    rec.first_byte_ns = first_byte_ns;
    rec.arrival_ns = steady_now_ns();
    rec.endpoint = "/v1/embeddings";
    if (auto id = req.find("x-request-id"); id != req.end()) rec.request_id = std::string(id->value());
    rec.body_bytes = req.body().size();
    embedding_request r;
    if (auto err = parse_embedding(req.body(), cfg_, r)) {
        rec.status = static_cast<int>(err->status);
        rec.outcome = "rejected";
        rec.end_ns = steady_now_ns();
        log_.write(rec);
        co_return co_await sim_io::send(stream, req, err->status, error_body(*err));
    }
    rec.prompt_tokens = r.prompt_tokens;
    live_request lr(stream.get_executor());
    const std::uint64_t id = next_id_++;
    bool gone = false;
    if (cfg_.model.firehose) {
        counters_.prompt_tokens += r.prompt_tokens;
    } else {
        runner_.add(lr, seq_request{id, r.prompt_tokens, 1, block_hashes(r.token_ids, cfg_.model.block_size)});
        gone = co_await sim_io::wait_finished(stream, lr);
        runner_.remove(id, lr);
    }
    bool ok = !gone;
    if (ok) {
        ok = co_await sim_io::send(stream, req, http::status::ok,
                                   embedding_response(cfg_.served_model_name, started_unix_, r));
        rec.first_token_ns = rec.last_token_ns = steady_now_ns();
    }
    if (ok) ++counters_.success;
    if (!ok) rec.outcome = "client_closed";
    rec.cached_tokens = lr.cached_tokens;
    rec.end_ns = steady_now_ns();
    log_.write(rec);
    co_return ok;
}

template net::awaitable<bool> completion_handler::complete(tcp_stream&, const sim_http_request&, std::string_view, std::int64_t);
template net::awaitable<bool> completion_handler::complete(tls_stream&, const sim_http_request&, std::string_view, std::int64_t);
template net::awaitable<bool> completion_handler::embed(tcp_stream&, const sim_http_request&, std::int64_t);
template net::awaitable<bool> completion_handler::embed(tls_stream&, const sim_http_request&, std::int64_t);

}  // namespace openloop
