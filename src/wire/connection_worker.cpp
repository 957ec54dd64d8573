// The coroutine each connection runs: it connects (or is opened ahead as a
// spare), then serves request after request: waits parked in the pool,
// writes the request it is given, reads the response through the parser into
// the reader, and waits again. One coroutine frame per connection, none per
// request; when a request that got nothing back on a pooled connection goes
// again, it goes on a fresh connection of the same worker.

#include "client_impl.hpp"

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
// body is large (the body follows once every request due with it is out).
std::string_view first_part(const prepared_request& r) {
    const std::string_view bytes = r.bytes;
    return r.head > 0 && bytes.size() - r.head >= separate_body_bytes ? bytes.substr(0, r.head) : bytes;
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

void client::impl::mark_sent(request_job& j) {
    if (j.sent) return;
    j.sent = true;
    owner.emit(event::sending(j.index, steady_now_ns()));
    const auto start = steady::now();
    j.dl.idle = opt.idle_timeout;
    if (opt.first_token_timeout.count() > 0) j.dl.first_token = start + opt.first_token_timeout;
    if (opt.total_timeout.count() > 0) j.dl.total = start + opt.total_timeout;
}

// The first part of j on w's plain TCP connection, as far as the socket takes
// it without waiting; the worker writes whatever is left, and meets any error.
void client::impl::write_now(worker& w, request_job& j) {
    if (w.conn->is_tls()) return;
    mark_sent(j);
    const std::string_view first = first_part(j.request);
    boost::system::error_code ec;
    j.written = w.conn->lowest().socket().write_some(net::buffer(first.data(), first.size()), ec);
}

net::awaitable<void> client::impl::work(worker& w) {
    // Cancellation comes back as operation_aborted results, classified as
    // cancelled; thrown instead, it would skip the bookkeeping below.
    co_await net::this_coro::throw_if_cancelled(false);
    try {
        for (;;) {
            if (!w.conn) {
                // A spare connects behind the requests already due: a connect
                // on loopback costs 15-100 us of the io thread, which belongs
                // to their writes.
                if (!w.job) co_await net::post(io, net::use_awaitable);
                if (closing) break;
                const std::int64_t t0 = steady_now_ns();
                error_class cls{};
                std::string why;  // a spare's failure is met again, and reported, by the request that opens the next one
                w.conn = co_await connect.open(cls, why);
                if (w.spare) {
                    w.spare = false;
                    --opening;
                }
                if (!w.conn) {
                    if (w.job) {
                        exchange_result unopened;
                        unopened.failure = closing ? error_class::cancelled : cls;
                        if (!closing) unopened.message = std::move(why);
                        end(w, unopened);
                    }
                    break;
                }
                if (w.job) {
                    const std::int64_t t1 = steady_now_ns();
                    owner.emit(event::connected(w.job->index, t1, t1 - t0));
                }
                w.pooled = !w.job;
            }
            // Two statements: GCC 12 miscompiles co_await and a capturing lambda in one.
            auto op = w.conn->with_stream([&](auto& stream) { return serve(stream, w); });
            const bool again = co_await std::move(op);
            w.conn.reset();
            if (!again) break;
        }
    } catch (...) {
        // The request still ends, so the reporter's count of it is right.
        if (w.job) {
            exchange_result failed;
            failed.failure = error_class::io;
            failed.message = cancel_group::describe(std::current_exception());
            end(w, failed);
        }
        forget(w);
        throw;
    }
    if (w.job) {
        exchange_result aborted;  // the run closed before it could go again
        aborted.failure = error_class::cancelled;
        end(w, aborted);
    }
    forget(w);
}

// Requests on one connection until it cannot carry another; true when the
// request in hand is to go again on a fresh connection.
template <class Stream>
net::awaitable<bool> client::impl::serve(Stream& stream, worker& w) {
    connection& c = *w.conn;
    for (;;) {
        if (!w.job) {
            park(w);
            w.wake.expires_at(steady_timer::time_point::max());
            co_await w.wake.async_wait();
            if (w.stop || !w.job) co_return false;
        }
        request_job& j = *w.job;
        if (closing) co_return true;  // ended as cancelled by work()
        keep_spares();
        mark_sent(j);
        if (!w.timed) {
            sweep.add(w.clock);
            w.timed = true;
        }
        request_clock& clock = w.clock;
        clock.stream = &c.lowest();
        clock.fired = false;
        clock.at_ns = ns_of(j.dl.total);
        clock.cls = error_class::timeout_total;

        // A large body goes after the headers of every request due with this
        // one: they were all written before any worker resumed. What send()
        // wrote already is not written again.
        exchange_fsm& fsm = w.fsm;
        exchange_action act = fsm.resume(exchange_fsm::begin{.pooled = w.pooled, .retried = j.retried});
        const std::string_view first = first_part(j.request);
        boost::system::error_code wec;
        std::size_t wn = 0;
        if (j.written < first.size())
            std::tie(wec, wn) = co_await net::async_write(stream, net::buffer(first.data() + j.written, first.size() - j.written));
        if (!wec && first.size() < j.request.bytes.size()) {
            const std::string_view body = std::string_view(j.request.bytes).substr(first.size());
            std::tie(wec, wn) = co_await net::async_write(stream, net::buffer(body.data(), body.size()));
        }
        j.written = 0;  // a retry writes it all again, on a fresh connection
        act = fsm.resume(exchange_fsm::wrote{.ec = wec, .timed_out = clock.fired, .closing = closing});
        response_reader& reader = w.reader;
        const auto emit = [this](const event& e) { owner.emit(e); };
        if (act == exchange_action::read)
            reader.start(j.index, opt.streamed ? response_mode::stream : response_mode::json, j.request.answer);
        response_parser<decltype(emit)> parser(reader, emit);
        parser.body_limit(opt.max_body);
        parser.header_limit(response_header_limit);
        const auto standing = [&] {
            return exchange_fsm::fed{.finished = reader.finished(),
                                     .header_done = parser.is_header_done(),
                                     .outcome = reader.outcome(),
                                     .status = reader.status(),
                                     .answered_ns = reader.answered_ns(),
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
                        const std::size_t n = stream.socket().read_some(net::buffer(read_buffer.get(), shared_read_bytes), o.ec);
                        o.t_ns = steady_now_ns();
                        if (o.ec == net::error::would_block || o.ec == net::error::try_again) continue;  // readable for nothing
                        o.shared = std::string_view(read_buffer.get(), n);
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
                                                    .closing = closing,
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

        act = fsm.resume(exchange_fsm::settle{.closing = closing, .reuse = reuse});
        if (act == exchange_action::retry) {
            owner.emit(event::retrying(j.index, steady_now_ns(), out.failure));
            j.retried = true;
            co_return true;
        }
        if (out.failure == error_class::none && w.pooled && c.served) ++reused_ok;
        const bool keep = act == exchange_action::keep;
        end(w, out);
        if (!keep) co_return false;
        c.served = true;
        w.pooled = true;
    }
}

}  // namespace openloop
