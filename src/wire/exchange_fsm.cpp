#include "openloop/wire/exchange_fsm.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;

std::pair<std::optional<deadlines::time_point>, error_class> read_deadline(const deadlines& dl, bool streaming,
                                                                          bool said_done, deadlines::time_point now) {
    auto [at, cls] = dl.next(streaming, now);
    if (said_done && (!at || now + body_end_after_done < *at)) {
        at = now + body_end_after_done;
        cls = error_class::timeout_idle;
    }
    return {at, cls};
}

namespace {

// The sweep cancels the socket of a request past its deadline: the abort it
// causes is that timeout.
boost::system::error_code timed(boost::system::error_code ec, bool timed_out) {
    return ec == net::error::operation_aborted && timed_out ? beast::error::timeout : ec;
}

// The connection died before any response byte: the server may have closed
// it idle as the request went out.
bool dead_before_answer(const boost::system::error_code& ec) {
    return ec == http::error::end_of_stream || ec == net::error::connection_reset || ec == net::error::broken_pipe ||
           ec == ssl::error::stream_truncated;
}

}  // namespace

exchange_action exchange_fsm::resume(const begin& in) {
    *this = exchange_fsm{};
    pooled_ = in.pooled;
    retried_ = in.retried;
    stage_ = stage::writing;
    return exchange_action::write;
}

exchange_action exchange_fsm::resume(const wrote& in) {
    closing_ = in.closing;
    if (in.ec) {
        ec_ = timed(in.ec, in.timed_out);
        result_.failure = classify(ec_, error_class::timeout_total, in.closing);
        result_.nothing_received = true;
        text_ = failure_text::writing;
        stage_ = stage::settling;
        return exchange_action::finish;
    }
    if (in.closing) {
        result_.failure = error_class::cancelled;  // cancelled as the write completed (see resume(parsed))
        stage_ = stage::settling;
        return exchange_action::finish;
    }
    stage_ = stage::reading;
    return exchange_action::read;
}

exchange_action exchange_fsm::resume(const read& in) {
    closing_ = in.closing;
    timeout_cls_ = in.timeout_cls;
    ec_ = timed(in.ec, in.timed_out);
    if (in.got_bytes) {
        got_bytes_ = true;
        stage_ = stage::parsing;
        return exchange_action::parse;
    }
    if (!ec_) return exchange_action::read;
    return fail(ec_);
}

exchange_action exchange_fsm::resume(const parsed& in) {
    if (stage_ == stage::at_eof) {
        // A body that runs until the connection closes ends here.
        if (!in.ec && in.done) {
            stage_ = stage::completing;
            return exchange_action::complete;
        }
        ec_ = in.ec ? in.ec : error_code(http::error::partial_message);
        return fail_read(ec_);
    }
    if (in.ec) {
        ec_ = in.ec;
    } else if (in.done) {
        stage_ = stage::completing;
        return exchange_action::complete;
    } else if (!ec_ && closing_) {
        // A cancellation emitted while this read's completion was already
        // queued reaches no operation and is not seen by the next one: a
        // stream that never pauses would then outlive the drain limit.
        ec_ = net::error::operation_aborted;
    }
    if (!ec_) {
        // The reader may have finished before the body did (a stream that broke).
        if (in.after.finished) return finish_reading(in.after);
        stage_ = stage::reading;
        return exchange_action::read;
    }
    return fail(ec_);
}

exchange_action exchange_fsm::fail(error_code ec) {
    if (ec == net::error::eof && got_bytes_) {
        ec_ = ec;
        stage_ = stage::at_eof;
        return exchange_action::put_eof;
    }
    if (ec == net::error::eof) ec = http::error::end_of_stream;
    return fail_read(ec);
}

exchange_action exchange_fsm::fail_read(error_code ec) {
    ec_ = ec;
    result_.nothing_received = !got_bytes_ && dead_before_answer(ec);
    read_failure_ = classify(ec, timeout_cls_, closing_);
    stage_ = stage::failing;
    return exchange_action::fail_read;
}

exchange_action exchange_fsm::resume(const fed& in) {
    if (stage_ == stage::failing) {
        if (!in.header_done) {
            result_.failure = in.outcome;
            if (in.outcome != error_class::cancelled) text_ = failure_text::headers;
            return finish_reading(in);
        }
        last_ec_ = ec_;
        if (!in.finished) {
            stage_ = stage::reading;
            return exchange_action::read;
        }
    }
    return finish_reading(in);
}

exchange_action exchange_fsm::finish_reading(const fed& in) {
    if (in.finished) {
        result_.status = in.status;
        result_.failure = in.outcome;
        if (in.outcome == error_class::none) {
            result_.answered_ns = in.answered_ns;
            result_.answer_tokens = in.answer_tokens;
        }
        if (in.outcome != error_class::none && in.outcome != error_class::cancelled && text_ == failure_text::none) {
            if (in.outcome == error_class::bad_http || in.outcome == error_class::io)
                text_ = failure_text::body;
            else if (in.outcome == error_class::http_3xx)
                text_ = failure_text::redirect;
            else
                text_ = failure_text::response;
        }
        // Bytes past the end of the message mean the server sent more than it
        // declared: the next request on this connection would read them as its answer.
        result_.reusable = in.at_body_end && in.keep_alive && !in.leftover;
    }
    stage_ = stage::settling;
    return exchange_action::finish;
}

exchange_action exchange_fsm::resume(const settle& in) {
    stage_ = stage::over;
    const exchange_result& r = result_;
    // Once only, and only when a pooled connection gave nothing back: the
    // server may never have seen the request. A total timeout or a
    // cancellation leaves no time for a second try.
    const bool retryable =
        r.nothing_received && r.failure != error_class::timeout_total && r.failure != error_class::cancelled;
    if (r.failure != error_class::none && retryable && pooled_ && !retried_ && !in.closing) return exchange_action::retry;
    return r.reusable && !in.closing && in.reuse ? exchange_action::keep : exchange_action::close;
}

}  // namespace openloop
