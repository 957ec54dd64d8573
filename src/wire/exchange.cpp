#include "openloop/wire/exchange.hpp"

#include "openloop/measure/clock.hpp"
#include "openloop/wire/client.hpp"
#include "openloop/wire/error_text.hpp"
#include "openloop/wire/response_parser.hpp"
#include "openloop/wire/response_reader.hpp"

#include <boost/asio/ssl/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/error.hpp>

#include <cstring>
#include <limits>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using steady = std::chrono::steady_clock;

std::pair<std::optional<deadlines::time_point>, error_class> deadlines::next(bool streaming, time_point now) const {
    std::optional<time_point> at;
    error_class cls = error_class::io;
    auto consider = [&](std::optional<time_point> t, error_class c) {
        if (t && (!at || *t < *at)) {
            at = t;
            cls = c;
        }
    };
    if (!streaming) consider(first_token, error_class::timeout_first_token);
    if (streaming && idle.count() > 0) consider(now + idle, error_class::timeout_idle);
    consider(total, error_class::timeout_total);
    return {at, cls};
}

error_class classify(const boost::system::error_code& ec, error_class timeout_cls, bool cancelled) {
    if (cancelled || ec == net::error::operation_aborted) return error_class::cancelled;
    if (ec == beast::error::timeout) return timeout_cls;
    if (ec == http::error::body_limit) return error_class::body_too_large;
    if (ec == http::error::end_of_stream || ec == http::error::partial_message || ec == net::error::eof ||
        ec == net::error::connection_reset || ec == net::error::broken_pipe || ec == ssl::error::stream_truncated)
        return error_class::stream_truncated;
    // Every other parser error (bad_version, bad_status, bad_field, bad_chunk,
    // bad_content_length, header_limit, ...) says the bytes were not HTTP/1.1.
    if (ec.category() == http::make_error_code(http::error::bad_version).category()) return error_class::bad_http;
    return error_class::io;
}

namespace {

using tcp = net::ip::tcp;

// What one read brought: in the shared buffer (plain TCP), or appended to
// the connection's own (TLS decrypts into it).
struct read_outcome {
    boost::system::error_code ec;
    std::string_view shared;
    std::size_t appended = 0;
    std::int64_t t_ns = 0;
};

// Plain TCP waits for readiness and then reads what is there, so no buffer
// is held while a stream is quiet and no read is tried in vain.
net::awaitable<read_outcome> read_more(tcp_stream& stream, connection&, char* shared) {
    auto& socket = stream.socket();
    for (;;) {
        auto [ec] = co_await socket.async_wait(tcp::socket::wait_read);
        if (ec) co_return read_outcome{ec, {}, 0, steady_now_ns()};
        boost::system::error_code rec;
        const std::size_t n = socket.read_some(net::buffer(shared, shared_read_bytes), rec);
        const std::int64_t t = steady_now_ns();
        if (rec == net::error::would_block || rec == net::error::try_again) continue;  // readable for nothing
        co_return read_outcome{rec, std::string_view(shared, n), 0, t};
    }
}

net::awaitable<read_outcome> read_more(tls_stream& stream, connection& c, char*) {
    auto [ec, n] = co_await stream.async_read_some(c.buffer.prepare(tls_read_bytes));
    const std::int64_t t = steady_now_ns();
    c.buffer.commit(n);
    co_return read_outcome{ec, {}, n, t};
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
    std::string_view data = direct ? o.shared : std::string_view(static_cast<const char*>(c.buffer.data().data()), c.buffer.size());
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

template <class Stream>
net::awaitable<exchange_result> exchange_on(Stream& stream, connection& c, const prepared_request& req,
                                            const deadlines& dl, exchange_context ctx) {
    exchange_result out;
    request_clock& clock = ctx.clock;
    clock.stream = &c.lowest();
    clock.fired = false;
    clock.at_ns = ns_of(dl.total);
    clock.cls = error_class::timeout_total;
    const std::string_view bytes = req.bytes;
    const bool apart = req.head > 0 && bytes.size() - req.head >= separate_body_bytes;
    const std::string_view first = apart ? bytes.substr(0, req.head) : bytes;
    auto [wec, wn] = co_await net::async_write(stream, net::buffer(first.data(), first.size()));
    if (!wec && apart) {
        // Resumed after the requests due with this one have written their headers.
        const std::string_view body = bytes.substr(req.head);
        std::tie(wec, wn) = co_await net::async_write(stream, net::buffer(body.data(), body.size()));
    }
    if (wec) {
        if (wec == net::error::operation_aborted && clock.fired) wec = beast::error::timeout;
        out.failure = classify(wec, error_class::timeout_total, ctx.cancelled);
        out.message = "writing the request: " + wec.message();
        out.nothing_received = true;
        co_return out;
    }
    // Cancelled as the write completed (see the read loop below).
    if (ctx.cancelled) {
        out.failure = error_class::cancelled;
        co_return out;
    }

    const auto emit = [&events = ctx.events](const event& e) { events.emit(e); };
    response_reader reader(ctx.decoder);
    reader.start(ctx.index);
    response_parser<decltype(emit)> parser(reader, emit);
    parser.body_limit(ctx.max_body);
    parser.header_limit(response_header_limit);

    bool got_bytes = false;
    boost::system::error_code last_ec;
    while (!reader.finished()) {
        const auto [at, cls] = dl.next(reader.streaming(), steady::now());
        clock.at_ns = ns_of(at);
        clock.cls = cls;
        const read_outcome o = co_await read_more(stream, c, ctx.read_buffer);
        boost::system::error_code ec = o.ec;
        if (ec == net::error::operation_aborted && clock.fired) ec = beast::error::timeout;
        if (!o.shared.empty() || o.appended > 0) {
            got_bytes = true;
            if (const beast::error_code pec = parse(parser, c, o)) {
                ec = pec;
            } else if (parser.is_done()) {
                reader.read({.bytes = {}, .t_ns = o.t_ns, .body_complete = true}, emit);
                break;
            } else if (!ec && ctx.cancelled) {
                // A cancellation emitted while this read's completion was already
                // queued reaches no operation and is not seen by the next one: a
                // stream that never pauses would then outlive the drain limit.
                ec = net::error::operation_aborted;
            }
        }
        if (!ec) continue;
        // A body that runs until the connection closes ends here.
        if (ec == net::error::eof && parser.got_some()) {
            beast::error_code eof;
            parser.put_eof(eof);
            if (!eof && parser.is_done()) {
                reader.read({.bytes = {}, .t_ns = o.t_ns, .body_complete = true}, emit);
                break;
            }
            ec = eof ? eof : beast::error_code(http::error::partial_message);
        } else if (ec == net::error::eof) {
            ec = http::error::end_of_stream;
        }
        const bool in_headers = !parser.is_header_done();
        out.nothing_received = !got_bytes && (ec == http::error::end_of_stream || ec == net::error::connection_reset ||
                                              ec == net::error::broken_pipe || ec == ssl::error::stream_truncated);
        reader.read({.bytes = {}, .t_ns = o.t_ns, .body_complete = false, .error = classify(ec, clock.cls, ctx.cancelled)},
                    emit);
        if (in_headers) {
            out.failure = reader.outcome();
            if (out.failure != error_class::cancelled) out.message = "reading the response headers: " + ec.message();
            co_return out;
        }
        last_ec = ec;
    }
    out.status = reader.status();
    out.failure = reader.outcome();
    if (out.failure != error_class::none && out.failure != error_class::cancelled) {
        out.message = out.failure == error_class::bad_http || out.failure == error_class::io
                          ? "reading the response body: " + last_ec.message()
                          : response_failure_message(out.failure, reader.content_type(), reader.kept_body());
    }
    // Bytes past the end of the message mean the server sent more than it
    // declared: the next request on this connection would read them as its answer.
    out.reusable = reader.ended_at_body_end() && parser.keep_alive() && c.buffer.size() == 0;
    co_return out;
}

}  // namespace

net::awaitable<exchange_result> exchange(connection& c, const prepared_request& req, const deadlines& dl,
                                         exchange_context ctx) {
    // Two statements: GCC 12 miscompiles co_await and a capturing lambda in one.
    auto op = c.with_stream([&](auto& stream) { return exchange_on(stream, c, req, dl, ctx); });
    co_return co_await std::move(op);
}

}  // namespace openloop
