#include "openloop/wire/exchange.hpp"

#include "openloop/measure/clock.hpp"
#include "openloop/wire/client.hpp"
#include "openloop/wire/error_text.hpp"
#include "openloop/wire/response_reader.hpp"

#include <boost/asio/write.hpp>
#include <boost/beast/http.hpp>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using steady = std::chrono::steady_clock;

std::pair<std::optional<deadlines::time_point>, error_class> deadlines::next(bool streaming) const {
    std::optional<time_point> at;
    error_class cls = error_class::io;
    auto consider = [&](std::optional<time_point> t, error_class c) {
        if (t && (!at || *t < *at)) {
            at = t;
            cls = c;
        }
    };
    if (!streaming) consider(first_token, error_class::timeout_first_token);
    if (streaming && idle.count() > 0) consider(steady::now() + idle, error_class::timeout_idle);
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

template <class Stream>
net::awaitable<exchange_result> exchange_on(Stream& stream, connection& c, const prepared_request& req,
                                            const deadlines& dl, exchange_context ctx) {
    exchange_result out;
    auto& low = c.lowest();
    if (dl.total) {
        low.expires_at(*dl.total);
    } else {
        low.expires_never();
    }
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

    auto arm = [&](bool streaming) {
        auto [at, cls] = dl.next(streaming);
        if (at) {
            low.expires_at(*at);
        } else {
            low.expires_never();
        }
        return cls;
    };
    const auto emit = [&events = ctx.events](const event& e) { events.emit(e); };
    response_reader reader(ctx.decoder);
    reader.start(ctx.index);

    // Beast's parser de-chunks the body and enforces the body limit (at the
    // Content-Length header, or at the chunk header that would pass it).
    http::response_parser<http::buffer_body> parser;
    parser.body_limit(ctx.max_body);
    parser.header_limit(response_header_limit);
    error_class timeout_cls = arm(false);
    auto [hec, hn] = co_await http::async_read_header(stream, c.buffer, parser);
    if (hec) {
        out.nothing_received = hn == 0 && (hec == http::error::end_of_stream || hec == net::error::connection_reset ||
                                           hec == net::error::eof || hec == net::error::broken_pipe ||
                                           hec == ssl::error::stream_truncated);
        reader.read({.bytes = {}, .t_ns = 0, .body_complete = false, .error = classify(hec, timeout_cls, ctx.cancelled)},
                    emit);
        out.failure = reader.outcome();
        if (out.failure != error_class::cancelled) out.message = "reading the response headers: " + hec.message();
        co_return out;
    }
    out.status = static_cast<int>(parser.get().result_int());
    const std::int64_t headers_ns = steady_now_ns();
    reader.headers(out.status, parser.get()[http::field::content_type], headers_ns, emit);
    // A body that ended with the headers (Content-Length: 0) ends there.
    if (parser.is_done()) reader.read({.bytes = {}, .t_ns = headers_ns, .body_complete = true}, emit);

    // Per request, since reads of many requests are pending at once; SSE
    // events are small, so a few KiB per read is plenty.
    char scratch[4096];
    boost::system::error_code last_ec;
    while (!reader.finished()) {
        parser.get().body().data = scratch;
        parser.get().body().size = sizeof scratch;
        timeout_cls = arm(reader.streaming());
        auto [ec, n] = co_await http::async_read_some(stream, c.buffer, parser);
        const std::int64_t t = steady_now_ns();
        if (ec == http::error::need_buffer) ec = {};
        read_completion r;
        r.bytes = std::string_view(scratch, sizeof scratch - parser.get().body().size);
        r.t_ns = t;
        r.body_complete = parser.is_done();
        if (ec) r.error = classify(ec, timeout_cls, ctx.cancelled);
        // A cancellation emitted while this read's completion was already
        // queued reaches no operation and is not seen by the next one: a
        // stream that never pauses would then outlive the drain limit.
        if (!ec && ctx.cancelled) r.error = error_class::cancelled;
        last_ec = ec;
        reader.read(r, emit);
    }
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
