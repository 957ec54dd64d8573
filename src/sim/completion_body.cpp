#include "openloop/sim/completion_body.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/sim/response_writer.hpp"
#include "openloop/sim/transcription_form.hpp"

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>

#include <algorithm>
#include <string>

namespace openloop {

namespace net = boost::asio;
namespace http = boost::beast::http;

template <class Stream>
net::awaitable<bool> write_streamed_answer(Stream& stream, const sim_http_request& req, completion_answer& a,
                                           const sim_config& cfg) {
    const auto& quirks = cfg.quirks;
    const completion_request& r = a.r;
    log_record& rec = a.rec;
    event_writer& w = a.w;
    responses_writer& rw = a.rw;
    live_request& lr = a.lr;
    const bool fh = a.firehose;
    const int n = a.n;
    int& sent = a.sent;
    std::string buf, frame;
    const int per_event = std::max(1, cfg.model.tokens_per_step);
    const int half = n / 2;
    bool stalled = false, corrupted = false, answered = false;
    // --quirk thinking-answer-chunk: the step that ends the thinking waits for the answer's
    // first, and both go out as one chunk.
    const bool join = quirks.thinking_answer_chunk && a.chat && !a.responses && a.plan.reasoning > 0 &&
                      a.plan.answer > 0 && !a.plan.tool_call;
    int held = 0;
    bool ok = co_await sim_io::write_stream_head(stream, req);
    if (ok) {
        if (a.responses) rw.opening(buf);
        // Azure-style filter results come first, as a chunk with no choices.
        if (!a.responses && quirks.empty_choices_chunk) w.empty_choices(buf);
        if (a.chat && !a.responses && !quirks.no_role_chunk) w.role(buf);
        if (!buf.empty()) ok = co_await sim_io::write_chunk(stream, frame, buf);
    }
    while (ok && sent < n) {
        int avail = n - sent;
        if (!fh) {
            while (lr.ready == 0) co_await lr.wake.async_wait();
            avail = lr.ready;
            lr.ready = 0;
        }
        buf.clear();
        // The tokens of one engine step go out as one event; firehose
        // coalesces up to 16 ready events into one write.
        for (int events = 0; avail > 0 && events < (fh ? 16 : 1); ++events) {
            const int k = fh ? std::min(per_event, avail) : avail;
            if (a.f == fault::disconnect && sent + k > half) {
                rec.outcome = "fault";
                ok = false;
                break;
            }
            if (a.f == fault::bad_chunk && !corrupted && sent + k > half) {
                if (a.responses) rw.malformed(buf);
                if (!a.responses) w.malformed(buf);
                corrupted = true;
            }
            if (a.f == fault::stall && !stalled && sent >= half && sent > 0) {
                stalled = true;
                if (!buf.empty() && !(co_await sim_io::write_chunk(stream, frame, buf))) {
                    ok = false;
                    break;
                }
                buf.clear();
                co_await sim_io::sleep_ms(stream, cfg.faults.stall_ms);
            }
            sent += k;
            avail -= k;
            if (join && sent == a.plan.reasoning) {
                held = k;
                continue;
            }
            if (quirks.keepalive_comments) buf.append(": keep-alive\n\n");
            const bool last = sent == n;
            w.cached_tokens = lr.cached_tokens;
            if (a.responses) {
                answered |= rw.step(buf, w, k, sent - k);
            } else {
                answered |= w.step(buf, held + k, sent - k - held, last ? a.finish : std::string_view{},
                                   last && r.include_usage && quirks.usage_in_last_chunk);
            }
            held = 0;
        }
        if (!ok) break;
        if (buf.empty()) continue;  // a step held back (thinking-answer-chunk): nothing went out
        // Stamped as the bytes are handed to the socket: the client cannot see them earlier.
        const auto t = steady_now_ns();
        if (!buf.empty()) ok = co_await sim_io::write_chunk(stream, frame, buf);
        if (!ok) {
            rec.outcome = "client_closed";
            break;
        }
        if (rec.first_token_ns < 0) rec.first_token_ns = t;
        if (answered && rec.first_answer_ns < 0) rec.first_answer_ns = t;
        rec.last_token_ns = t;
        // Let other connections write between our batches of events.
        if (fh && sent < n) co_await net::post(stream.get_executor(), net::use_awaitable);
    }
    if (ok) {
        buf.clear();
        w.cached_tokens = rw.cached_tokens = lr.cached_tokens;
        // A Responses stream has no [DONE]: response.completed, with the usage, is its end.
        if (a.responses) rw.closing(buf, generated_words(a.h, std::max(0, sent - a.plan.reasoning)), sent, a.length);
        if (!a.responses && r.include_usage && !quirks.usage_in_last_chunk) w.final_usage(buf, sent);
        if (!a.responses && !quirks.no_done) buf.append("data: [DONE]\n\n");
        if (!buf.empty()) ok = co_await sim_io::write_chunk(stream, frame, buf);
        if (ok) ok = co_await sim_io::write_all(stream, "0\r\n\r\n");
        if (!ok) rec.outcome = "client_closed";
    }
    co_return ok;
}

template <class Stream>
net::awaitable<bool> write_whole_answer(Stream& stream, const sim_http_request& req, completion_answer& a,
                                        const sim_config& cfg, std::int64_t started_unix) {
    log_record& rec = a.rec;
    // A client that hangs up while its answer is decoded frees its slot,
    // as a streaming one does at its next write.
    bool gone = false;
    if (!a.firehose) gone = co_await sim_io::wait_finished(stream, a.lr);
    a.sent = gone ? 0 : a.n;
    if (!gone && a.f == fault::stall) co_await sim_io::sleep_ms(stream, cfg.faults.stall_ms);
    if (gone) {
        rec.outcome = "client_closed";
        co_return false;
    }
    if (a.f == fault::disconnect) {
        rec.outcome = "fault";
        co_return false;
    }
    const answer_plan& p = a.plan;
    const std::string text = p.tool_call ? std::string() : generated_words(a.h, p.answer);
    const std::string reasoning = generated_words(a.think_h, p.reasoning);
    std::vector<std::string> arguments;
    chat_extras extras{reasoning, cfg.answers.shape, a.w.thinks && cfg.answers.shape == reasoning_shape::reasoning,
                       p.reasoning, {}};
    for (int i = 0; i < p.calls(); ++i)
        arguments.push_back(tool_arguments(call_words(a.h, i), p.call_tokens(i), p.call_tokens(i)));
    for (int i = 0; i < p.calls(); ++i) {
        const auto at = static_cast<std::size_t>(i);
        extras.calls.push_back({a.w.calls[at].id, p.functions[at], arguments[at]});
    }
    a.rw.cached_tokens = a.lr.cached_tokens;
    std::string s = a.transcription ? transcription_response(text, a.r.audio_seconds)
                  : a.responses     ? a.rw.body(text, a.n, a.length)
                                    : completion_response(a.chat, (a.chat ? "chatcmpl-" : "cmpl-") + std::to_string(a.id),
                                                      started_unix, a.rec.model, text, a.finish,
                                                      a.r.prompt_tokens, a.n, a.lr.cached_tokens, extras);
    if (a.f == fault::bad_chunk) s.resize(s.size() / 2);
    const bool ok = co_await sim_io::send(stream, req, http::status::ok, std::move(s));
    rec.first_token_ns = rec.last_token_ns = steady_now_ns();
    if (p.answer > 0) rec.first_answer_ns = rec.first_token_ns;
    if (!ok) rec.outcome = "client_closed";
    co_return ok;
}

template net::awaitable<bool> write_streamed_answer(tcp_stream&, const sim_http_request&, completion_answer&, const sim_config&);
template net::awaitable<bool> write_streamed_answer(tls_stream&, const sim_http_request&, completion_answer&, const sim_config&);
template net::awaitable<bool> write_whole_answer(tcp_stream&, const sim_http_request&, completion_answer&, const sim_config&,
                                                 std::int64_t);
template net::awaitable<bool> write_whole_answer(tls_stream&, const sim_http_request&, completion_answer&, const sim_config&,
                                                 std::int64_t);

}  // namespace openloop
