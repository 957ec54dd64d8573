// A request that got nothing back on a pooled connection goes again on a
// fresh connection of the same worker.

#include "connection_worker.hpp"

#include "connection_pool.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/wire/error_text.hpp"
#include "openloop/wire/response_parser.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <array>
#include <cstring>
#include <limits>
#include <type_traits>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

namespace {

// What goes in a request's first write: all of it, or its headers when its
// body is large or carries media (the body follows once every request due
// with it is out).
std::string_view first_part(const prepared_request& r) {
    const std::string_view bytes = r.bytes;
    const bool separate = !r.splices.empty() || bytes.size() - r.head >= separate_body_bytes;
    return r.head > 0 && separate ? bytes.substr(0, r.head) : bytes;
}

// The bytes after from of a request with splices, as buffers in wire order:
// its own pieces and the shared payloads between them, none copied.
void gather_body(const prepared_request& r, std::size_t from, std::vector<net::const_buffer>& out) {
    out.clear();
    const std::string_view bytes = r.bytes;
    for (const body_splice& s : r.splices) {
        if (s.at > from) out.emplace_back(bytes.data() + from, s.at - from);
        out.emplace_back(s.payload.data(), s.payload.size());
        from = s.at;
    }
    if (from < bytes.size()) out.emplace_back(bytes.data() + from, bytes.size() - from);
}

// What one read brought: in the shared buffer (plain TCP), or appended to
// the connection's own (TLS decrypts into it).
struct read_outcome {
    boost::system::error_code ec;
    std::string_view shared;
    std::size_t appended = 0;
    std::int64_t t_ns = 0;
};

// What a failed exchange's message says; empty for a completed or cancelled one.
std::string failure_message(const exchange_fsm& fsm, const response_reader& reader) {
    switch (fsm.text()) {
    case failure_text::none: return {};
    case failure_text::writing: return "writing the request: " + fsm.error().message();
    case failure_text::headers: return "reading the response headers: " + fsm.error().message();
    case failure_text::body: return "reading the response body: " + fsm.error().message();
    case failure_text::redirect: return redirect_message(reader.redirect_location());
    case failure_text::response:
        if (reader.stream_error() == sse_error::event_too_large) return oversized_event_message(reader.max_event_bytes());
        return response_failure_message(fsm.result().failure, reader.content_type(), reader.kept_body(),
                                        reader.mode() == response_mode::stream);
    }
    return {};
}

std::int64_t ns_of(std::optional<deadlines::time_point> at) {
    return at ? std::chrono::duration_cast<std::chrono::nanoseconds>(at->time_since_epoch()).count()
              : std::numeric_limits<std::int64_t>::max();
}

// Parses what a read brought after what the connection held back; what is
// left unparsed (a header or chunk header cut short, or bytes past the end
// of the response) stays in the connection's buffer.
template <class Parser>
beast::error_code parse(Parser& parser, connection& c, const read_outcome& o) {
    const bool direct = c.buffer.size() == 0 && o.appended == 0;
    if (!direct && !o.shared.empty()) {
        const auto space = c.buffer.prepare(o.shared.size());
        std::memcpy(space.data(), o.shared.data(), o.shared.size());
        c.buffer.commit(o.shared.size());
    }
    const std::string_view data =
        direct ? o.shared : std::string_view(static_cast<const char*>(c.buffer.data().data()), c.buffer.size());
    parser.at(o.t_ns);
    beast::error_code ec;
    std::size_t used = 0;
    while (used < data.size() && !parser.is_done()) {
        const std::size_t n = parser.put(net::buffer(data.data() + used, data.size() - used), ec);
        used += n;
        if (ec == http::error::need_more) ec = {};
        if (ec || n == 0) break;
    }
    if (direct) {
        if (used < data.size()) {
            const auto space = c.buffer.prepare(data.size() - used);
            std::memcpy(space.data(), data.data() + used, data.size() - used);
            c.buffer.commit(data.size() - used);
        }
    } else {
        c.buffer.consume(used);
    }
    return ec;
}

}  // namespace

connection_worker::connection_worker(client_context& ctx, connection_pool& pool, std::optional<request_job> job)
    : ctx_(ctx), pool_(pool), wake_(ctx.io), job_(std::move(job)), spare_(!job_), reader_(ctx.decoder, ctx.opt.thinking_parser) {}

void connection_worker::mark_sent(request_job& j) {
    if (j.sent) return;
    j.sent = true;
    ctx_.emit(event::sending(j.index, steady_now_ns()));
    const auto start = steady::now();
    j.dl.idle = ctx_.opt.idle_timeout;
    if (ctx_.opt.first_token_timeout.count() > 0) j.dl.first_token = start + ctx_.opt.first_token_timeout;
    if (ctx_.opt.total_timeout.count() > 0) j.dl.total = start + ctx_.opt.total_timeout;
}

// Written here, in the scheduler's own loop, rather than when the worker
// resumes behind whatever reads are queued: requests due together, or a few
// microseconds apart, leave that close on the wire. On plain TCP the first
// part goes as far as the socket takes it without waiting; the worker writes
// whatever is left, and meets any error.
void connection_worker::give(request_job job) {
    if (!conn_->is_tls()) {
        mark_sent(job);
        const std::string_view first = first_part(job.request);
        boost::system::error_code ec;
        job.written = conn_->lowest().socket().write_some(net::buffer(first.data(), first.size()), ec);
    }
    job_.emplace(std::move(job));
    wake_.cancel();
}

void connection_worker::retire() {
    stop_ = true;
    wake_.cancel();
}

void connection_worker::end(const exchange_result& r) {
    if (timed_) {
        ctx_.sweep.remove(clock_);
        timed_ = false;
    }
    ctx_.end(job_, r);
}

net::awaitable<void> connection_worker::run() {
    // Cancellation comes back as operation_aborted results, classified as
    // cancelled; thrown instead, it would skip the bookkeeping below.
    co_await net::this_coro::throw_if_cancelled(false);
    try {
        for (;;) {
            if (!conn_) {
                // A spare connects behind the requests already due: a connect
                // on loopback costs 15-100 us of the io thread, which belongs
                // to their writes.
                if (!job_) co_await net::post(ctx_.io, net::use_awaitable);
                if (ctx_.closing) break;
                const std::int64_t t0 = steady_now_ns();
                error_class cls{};
                std::string why;  // a spare's failure is met again, and reported, by the request that opens the next one
                conn_ = co_await ctx_.connect.open(cls, why);
                if (spare_) {
                    spare_ = false;
                    pool_.spare_opened();
                }
                if (!conn_) {
                    if (job_) {
                        exchange_result unopened;
                        unopened.failure = ctx_.closing ? error_class::cancelled : cls;
                        if (!ctx_.closing) unopened.message = std::move(why);
                        end(unopened);
                    }
                    break;
                }
                if (job_) {
                    const std::int64_t t1 = steady_now_ns();
                    ctx_.emit(event::connected(job_->index, t1, t1 - t0));
                }
                pooled_ = !job_;
            }
            // Two statements: GCC 12 miscompiles co_await and a capturing lambda in one.
            auto op = conn_->with_stream([&](auto& stream) { return serve(stream); });
            const bool again = co_await std::move(op);
            conn_.reset();
            if (!again) break;
        }
    } catch (...) {
        // The request still ends, so the reporter's count of it is right.
        if (job_) {
            exchange_result failed;
            failed.failure = error_class::io;
            failed.message = cancel_group::describe(std::current_exception());
            end(failed);
        }
        pool_.forget(*this);  // destroys this worker: nothing of it is touched after
        throw;
    }
    if (job_) {
        exchange_result aborted;  // the run closed before it could go again
        aborted.failure = error_class::cancelled;
        end(aborted);
    }
    pool_.forget(*this);  // destroys this worker: nothing of it is touched after
}

template <class Stream>
net::awaitable<bool> connection_worker::serve(Stream& stream) {
    connection& c = *conn_;
    for (;;) {
        if (!job_) {
            pool_.park(*this);
            wake_.expires_at(steady_timer::time_point::max());
            co_await wake_.async_wait();
            if (stop_ || !job_) co_return false;
        }
        request_job& j = *job_;
        if (ctx_.closing) co_return true;  // ended as cancelled by run()
        pool_.keep_spares();
        mark_sent(j);
        if (!timed_) {
            ctx_.sweep.add(clock_);
            timed_ = true;
        }
        request_clock& clock = clock_;
        clock.stream = &c.lowest();
        clock.fired = false;
        clock.at_ns = ns_of(j.dl.total);
        clock.cls = error_class::timeout_total;

        // A large body goes after the headers of every request due with this
        // one: they were all written before any worker resumed. What send()
        // wrote already is not written again.
        exchange_fsm& fsm = fsm_;
        fsm.resume(exchange_fsm::begin{.pooled = pooled_, .retried = j.retried});  // always write first
        const std::string_view first = first_part(j.request);
        boost::system::error_code wec;
        std::size_t wn = 0;
        if (j.written < first.size())
            std::tie(wec, wn) = co_await net::async_write(stream, net::buffer(first.data() + j.written, first.size() - j.written));
        if (!wec && !j.request.splices.empty()) {
            // Written a few buffers at a time from a fixed array: asio's async_write over a
            // vector prepares 64 at a time, an operation too large for the memory asio
            // recycles, which would allocate once per request.
            std::vector<net::const_buffer>& body = gather_;
            gather_body(j.request, first.size(), body);
            std::size_t next = 0;
            while (!wec && next < body.size()) {
                std::array<net::const_buffer, 8> batch{};
                for (std::size_t k = 0; k < batch.size() && next + k < body.size(); ++k) batch[k] = body[next + k];
                std::tie(wec, wn) = co_await stream.async_write_some(batch);
                for (; wn > 0 && next < body.size(); ++next) {
                    if (wn < body[next].size()) {
                        body[next] += wn;
                        break;
                    }
                    wn -= body[next].size();
                }
            }
        } else if (!wec && first.size() < j.request.bytes.size()) {
            const std::string_view body = std::string_view(j.request.bytes).substr(first.size());
            std::tie(wec, wn) = co_await net::async_write(stream, net::buffer(body.data(), body.size()));
        }
        j.written = 0;  // a retry writes it all again, on a fresh connection
        exchange_action act = fsm.resume(exchange_fsm::wrote{.ec = wec, .timed_out = clock.fired, .closing = ctx_.closing});
        response_reader& reader = reader_;
        const auto emit = [this](const event& e) { ctx_.emit(e); };
        if (act == exchange_action::read)
            reader.start(j.index, ctx_.opt.streamed ? response_mode::stream : response_mode::json, j.request.answer);
        response_parser<decltype(emit)> parser(reader, emit);
        parser.body_limit(ctx_.opt.max_body);
        parser.header_limit(response_header_limit);
        const auto standing = [&] {
            return exchange_fsm::fed{.finished = reader.finished(),
                                     .header_done = parser.is_header_done(),
                                     .outcome = reader.outcome(),
                                     .status = reader.status(),
                                     .answered_ns = reader.answered_ns(),
                                     .answer_tokens = reader.answer_tokens(),
                                     .at_body_end = reader.ended_at_body_end(),
                                     .keep_alive = parser.keep_alive(),
                                     .leftover = c.buffer.size() != 0};
        };
        read_outcome o;
        while (act != exchange_action::finish) {
            switch (act) {
            case exchange_action::read: {
                const auto [at, cls] = read_deadline(j.dl, reader.streaming(), reader.said_done(), steady::now());
                clock.at_ns = ns_of(at);
                clock.cls = cls;
                o = {};
                if constexpr (std::is_same_v<Stream, tcp_stream>) {
                    // Waits for readiness, then reads what is there: no buffer
                    // is held while a stream is quiet, and no read tried in vain.
                    auto [ec] = co_await stream.socket().async_wait(tcp::socket::wait_read);
                    o.t_ns = steady_now_ns();
                    if (ec) {
                        o.ec = ec;
                    } else {
                        const std::size_t n = stream.socket().read_some(net::buffer(ctx_.read_buffer.get(), shared_read_bytes), o.ec);
                        o.t_ns = steady_now_ns();
                        if (o.ec == net::error::would_block || o.ec == net::error::try_again) continue;  // readable for nothing
                        o.shared = std::string_view(ctx_.read_buffer.get(), n);
                    }
                } else {
                    auto [ec, n] = co_await stream.async_read_some(c.buffer.prepare(tls_read_bytes));
                    o.t_ns = steady_now_ns();
                    c.buffer.commit(n);
                    o.ec = ec;
                    o.appended = n;
                }
                act = fsm.resume(exchange_fsm::read{.ec = o.ec,
                                                    .got_bytes = !o.shared.empty() || o.appended > 0,
                                                    .timed_out = clock.fired,
                                                    .closing = ctx_.closing,
                                                    .timeout_cls = clock.cls});
                break;
            }
            case exchange_action::parse: {
                const beast::error_code pec = parse(parser, c, o);
                act = fsm.resume(exchange_fsm::parsed{.ec = pec, .done = parser.is_done(), .after = standing()});
                break;
            }
            case exchange_action::put_eof: {
                beast::error_code eof;
                parser.put_eof(eof);
                act = fsm.resume(exchange_fsm::parsed{.ec = eof, .done = parser.is_done(), .after = standing()});
                break;
            }
            case exchange_action::complete:
                reader.read({.bytes = {}, .t_ns = o.t_ns, .body_complete = true}, emit);
                act = fsm.resume(standing());
                break;
            case exchange_action::fail_read:
                reader.read({.bytes = {}, .t_ns = o.t_ns, .body_complete = false, .error = fsm.read_failure()}, emit);
                act = fsm.resume(standing());
                break;
            default:
                act = exchange_action::finish;  // not reached: the exchange's steps are the cases above
            }
        }
        exchange_result out = fsm.result();
        out.message = failure_message(fsm, reader);
        clock.stream = nullptr;

        act = fsm.resume(exchange_fsm::settle{.closing = ctx_.closing, .reuse = pool_.reuse()});
        if (act == exchange_action::retry) {
            ctx_.emit(event::retrying(j.index, steady_now_ns(), out.failure));
            j.retried = true;
            co_return true;
        }
        if (out.failure == error_class::none && pooled_ && c.served) pool_.reused_ok();
        const bool keep = act == exchange_action::keep;
        end(out);
        if (!keep) co_return false;
        c.served = true;
        pooled_ = true;
    }
}

}  // namespace openloop
