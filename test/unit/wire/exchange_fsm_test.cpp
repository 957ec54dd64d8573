#include <boost/test/unit_test.hpp>

#include "openloop/wire/exchange_fsm.hpp"
#include "printing.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <ostream>

BOOST_AUTO_TEST_SUITE(unit_exchange_fsm)

using namespace openloop;
namespace net = boost::asio;
namespace http = boost::beast::http;
using act = exchange_action;
using fsm_t = exchange_fsm;

namespace {

// A whole 200 response with keep-alive, as the reader and parser leave it.
fsm_t::fed whole(bool keep_alive = true) {
    return {.finished = true, .header_done = true, .outcome = error_class::none, .status = 200,
            .answered_ns = 42, .at_body_end = true, .keep_alive = keep_alive, .leftover = false};
}

// Mid-body: headers in, the reader still reading.
fsm_t::fed reading() { return {.finished = false, .header_done = true, .status = 200}; }

// Begins an exchange and writes it, ready for its first read.
void written(fsm_t& f, bool pooled, bool retried = false) {
    BOOST_TEST(f.resume(fsm_t::begin{.pooled = pooled, .retried = retried}) == act::write);
    BOOST_TEST(f.resume(fsm_t::wrote{}) == act::read);
}

fsm_t::read bytes() { return {.got_bytes = true}; }
fsm_t::read failed(boost::system::error_code ec) { return {.ec = ec}; }

// The connection closes before any response byte: the reader fails in its headers.
void closed_unanswered(fsm_t& f, boost::system::error_code ec) {
    BOOST_TEST(f.resume(failed(ec)) == act::fail_read);
    BOOST_TEST(f.read_failure() == error_class::stream_truncated);
    BOOST_TEST(f.resume(fsm_t::fed{.finished = true, .outcome = error_class::stream_truncated}) == act::finish);
}

}  // namespace

BOOST_AUTO_TEST_CASE(a_complete_response_with_keep_alive_keeps_the_connection) {
    fsm_t f;
    written(f, false);
    BOOST_TEST(f.resume(bytes()) == act::parse);
    BOOST_TEST(f.resume(fsm_t::parsed{.done = true, .after = reading()}) == act::complete);
    BOOST_TEST(f.resume(whole()) == act::finish);
    BOOST_TEST(f.result().failure == error_class::none);
    BOOST_TEST(f.result().status == 200);
    BOOST_TEST(f.result().answered_ns == 42);
    BOOST_TEST(f.result().reusable);
    BOOST_TEST(f.text() == failure_text::none);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::keep);
}

BOOST_AUTO_TEST_CASE(reuse_needs_keep_alive_the_body_end_no_leftover_and_the_pool_willing) {
    const auto settled = [](fsm_t::fed end, fsm_t::settle s) {
        fsm_t f;
        written(f, true);
        f.resume(bytes());
        f.resume(fsm_t::parsed{.done = true, .after = reading()});
        BOOST_TEST(f.resume(end) == act::finish);
        return f.resume(s);
    };
    BOOST_TEST(settled(whole(), {}) == act::keep);
    BOOST_TEST(settled(whole(false), {}) == act::close);
    fsm_t::fed extra = whole();
    extra.leftover = true;  // the server sent more than it declared
    BOOST_TEST(settled(extra, {}) == act::close);
    fsm_t::fed cut = whole();
    cut.at_body_end = false;  // completed at [DONE], the body's end not seen
    BOOST_TEST(settled(cut, {}) == act::close);
    BOOST_TEST(settled(whole(), {.reuse = false}) == act::close);
    BOOST_TEST(settled(whole(), {.closing = true}) == act::close);
}

BOOST_AUTO_TEST_CASE(an_error_status_read_to_its_end_keeps_the_connection) {
    fsm_t f;
    written(f, false);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.done = true, .after = reading()});
    fsm_t::fed end = whole();
    end.outcome = error_class::http_5xx;
    end.status = 503;
    BOOST_TEST(f.resume(end) == act::finish);
    BOOST_TEST(f.result().failure == error_class::http_5xx);
    BOOST_TEST(f.result().answered_ns == 0);
    BOOST_TEST(f.text() == failure_text::response);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::keep);
}

BOOST_AUTO_TEST_CASE(reads_go_on_until_the_message_is_whole) {
    fsm_t f;
    written(f, false);
    BOOST_TEST(f.resume(fsm_t::read{}) == act::read);  // readable for nothing
    for (int i = 0; i < 3; ++i) {
        BOOST_TEST(f.resume(bytes()) == act::parse);
        BOOST_TEST(f.resume(fsm_t::parsed{.after = reading()}) == act::read);
    }
}

BOOST_AUTO_TEST_CASE(a_pooled_connection_that_gave_nothing_back_retries_once) {
    for (const boost::system::error_code ec : {boost::system::error_code(net::error::eof),
                                               boost::system::error_code(net::error::connection_reset),
                                               boost::system::error_code(net::ssl::error::stream_truncated)}) {
        fsm_t f;
        written(f, true);
        closed_unanswered(f, ec);
        BOOST_TEST(f.result().nothing_received);
        BOOST_TEST(f.text() == failure_text::headers);
        BOOST_TEST(f.resume(fsm_t::settle{}) == act::retry, ec.message());
    }
    fsm_t again;
    written(again, true, true);  // it already went again once
    closed_unanswered(again, net::error::eof);
    BOOST_TEST(again.resume(fsm_t::settle{}) == act::close);

    fsm_t fresh;
    written(fresh, false);  // a fresh connection: the server did see it
    closed_unanswered(fresh, net::error::eof);
    BOOST_TEST(fresh.resume(fsm_t::settle{}) == act::close);

    fsm_t closing;
    written(closing, true);
    closed_unanswered(closing, net::error::eof);
    BOOST_TEST(closing.resume(fsm_t::settle{.closing = true}) == act::close);
}

BOOST_AUTO_TEST_CASE(a_write_that_fails_on_a_pooled_connection_retries) {
    fsm_t f;
    f.resume(fsm_t::begin{.pooled = true});
    BOOST_TEST(f.resume(fsm_t::wrote{.ec = net::error::broken_pipe}) == act::finish);
    BOOST_TEST(f.result().failure == error_class::stream_truncated);
    BOOST_TEST(f.result().nothing_received);
    BOOST_TEST(f.text() == failure_text::writing);
    BOOST_TEST(f.error() == boost::system::error_code(net::error::broken_pipe));
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::retry);
}

BOOST_AUTO_TEST_CASE(some_bytes_back_is_never_retried) {
    fsm_t f;
    written(f, true);
    BOOST_TEST(f.resume(bytes()) == act::parse);
    BOOST_TEST(f.resume(fsm_t::parsed{.after = {}}) == act::read);  // half a status line
    BOOST_TEST(f.resume(failed(net::error::connection_reset)) == act::fail_read);
    BOOST_TEST(f.resume(fsm_t::fed{.finished = true, .outcome = error_class::stream_truncated}) == act::finish);
    BOOST_TEST(!f.result().nothing_received);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::close);
}

BOOST_AUTO_TEST_CASE(a_body_that_runs_until_the_connection_closes_completes_there) {
    fsm_t f;
    written(f, false);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.after = reading()});
    BOOST_TEST(f.resume(failed(net::error::eof)) == act::put_eof);
    BOOST_TEST(f.resume(fsm_t::parsed{.done = true, .after = reading()}) == act::complete);
    fsm_t::fed end = whole(false);
    BOOST_TEST(f.resume(end) == act::finish);
    BOOST_TEST(f.result().failure == error_class::none);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::close);
}

BOOST_AUTO_TEST_CASE(a_body_cut_short_by_the_close_is_partial) {
    fsm_t f;
    written(f, false);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.after = reading()});
    BOOST_TEST(f.resume(failed(net::error::eof)) == act::put_eof);
    BOOST_TEST(f.resume(fsm_t::parsed{.after = reading()}) == act::fail_read);
    BOOST_TEST(f.read_failure() == error_class::stream_truncated);
    // Without [DONE] the reader fails the stream; the message quotes the parser.
    BOOST_TEST(f.resume(fsm_t::fed{.finished = true, .header_done = true, .outcome = error_class::io, .status = 200}) ==
               act::finish);
    BOOST_TEST(f.text() == failure_text::body);
    BOOST_TEST(f.error() == boost::system::error_code(http::error::partial_message));
}

BOOST_AUTO_TEST_CASE(a_stream_past_done_completes_at_done_and_closes) {
    fsm_t f;
    written(f, true);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.after = reading()});
    // The body never ends: the deadline past [DONE] fires.
    BOOST_TEST(f.resume(fsm_t::read{.ec = net::error::operation_aborted, .timed_out = true,
                                    .timeout_cls = error_class::timeout_idle}) == act::fail_read);
    BOOST_TEST(f.read_failure() == error_class::timeout_idle);
    fsm_t::fed done = whole();
    done.at_body_end = false;
    done.answered_ns = 7;
    BOOST_TEST(f.resume(done) == act::finish);
    BOOST_TEST(f.result().failure == error_class::none);
    BOOST_TEST(f.result().answered_ns == 7);
    BOOST_TEST(!f.result().reusable);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::close);
}

BOOST_AUTO_TEST_CASE(the_read_deadline_after_done_is_short_unless_another_is_sooner) {
    const auto now = deadlines::time_point{} + std::chrono::hours(1);
    deadlines dl;
    dl.idle = std::chrono::seconds(30);
    auto [at, cls] = read_deadline(dl, true, false, now);
    BOOST_TEST((at == now + std::chrono::seconds(30)));
    BOOST_TEST(cls == error_class::timeout_idle);
    std::tie(at, cls) = read_deadline(dl, true, true, now);
    BOOST_TEST((at == now + body_end_after_done));
    BOOST_TEST(cls == error_class::timeout_idle);
    dl.total = now + std::chrono::milliseconds(100);
    std::tie(at, cls) = read_deadline(dl, true, true, now);
    BOOST_TEST((at == *dl.total));
    BOOST_TEST(cls == error_class::timeout_total);
    std::tie(at, cls) = read_deadline(deadlines{}, false, true, now);  // no deadline at all but [DONE]'s
    BOOST_TEST((at == now + body_end_after_done));
}

BOOST_AUTO_TEST_CASE(timeouts_fail_in_the_class_of_the_deadline_armed) {
    fsm_t f;
    written(f, true);
    BOOST_TEST(f.resume(fsm_t::read{.ec = net::error::operation_aborted, .timed_out = true,
                                    .timeout_cls = error_class::timeout_first_token}) == act::fail_read);
    BOOST_TEST(f.read_failure() == error_class::timeout_first_token);
    BOOST_TEST(f.resume(fsm_t::fed{.finished = true, .outcome = error_class::timeout_first_token}) == act::finish);
    BOOST_TEST(f.text() == failure_text::headers);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::close);  // it got nothing back, but not for a closed connection

    fsm_t w;
    w.resume(fsm_t::begin{.pooled = true});
    BOOST_TEST(w.resume(fsm_t::wrote{.ec = net::error::operation_aborted, .timed_out = true}) == act::finish);
    BOOST_TEST(w.result().failure == error_class::timeout_total);
    BOOST_TEST(w.resume(fsm_t::settle{}) == act::close);  // no time is left for a second try
}

BOOST_AUTO_TEST_CASE(cancellation_ends_every_stage_cancelled) {
    fsm_t w;
    w.resume(fsm_t::begin{.pooled = true});
    BOOST_TEST(w.resume(fsm_t::wrote{.closing = true}) == act::finish);  // as the write completed
    BOOST_TEST(w.result().failure == error_class::cancelled);
    BOOST_TEST(w.text() == failure_text::none);
    BOOST_TEST(w.resume(fsm_t::settle{.closing = true}) == act::close);

    fsm_t a;
    a.resume(fsm_t::begin{.pooled = true});
    BOOST_TEST(a.resume(fsm_t::wrote{.ec = net::error::operation_aborted, .closing = true}) == act::finish);
    BOOST_TEST(a.result().failure == error_class::cancelled);
    BOOST_TEST(a.resume(fsm_t::settle{.closing = true}) == act::close);

    // A stream that never pauses: its reads succeed, and the cancellation is seen after each.
    fsm_t r;
    written(r, false);
    BOOST_TEST(r.resume(fsm_t::read{.got_bytes = true, .closing = true}) == act::parse);
    BOOST_TEST(r.resume(fsm_t::parsed{.after = reading()}) == act::fail_read);
    BOOST_TEST(r.read_failure() == error_class::cancelled);
    BOOST_TEST(r.resume(fsm_t::fed{.finished = true, .header_done = true, .outcome = error_class::cancelled}) ==
               act::finish);
    BOOST_TEST(r.text() == failure_text::none);

    // The read's abort, not timed out, is the cancellation; in the headers it says nothing.
    fsm_t h;
    written(h, true);
    BOOST_TEST(h.resume(fsm_t::read{.ec = net::error::operation_aborted, .closing = true}) == act::fail_read);
    BOOST_TEST(h.read_failure() == error_class::cancelled);
    BOOST_TEST(h.resume(fsm_t::fed{.finished = true, .outcome = error_class::cancelled}) == act::finish);
    BOOST_TEST(h.text() == failure_text::none);
    BOOST_TEST(!h.result().nothing_received);
    BOOST_TEST(h.resume(fsm_t::settle{.closing = true}) == act::close);
}

BOOST_AUTO_TEST_CASE(a_parse_error_fails_the_read_as_bad_http) {
    fsm_t f;
    written(f, true);
    f.resume(bytes());
    BOOST_TEST(f.resume(fsm_t::parsed{.ec = http::error::bad_version, .after = {}}) == act::fail_read);
    BOOST_TEST(f.read_failure() == error_class::bad_http);
    BOOST_TEST(f.resume(fsm_t::fed{.finished = true, .outcome = error_class::bad_http}) == act::finish);
    BOOST_TEST(f.text() == failure_text::headers);
    BOOST_TEST(f.error() == boost::system::error_code(http::error::bad_version));
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::close);  // bytes came back: never again
}

BOOST_AUTO_TEST_CASE(a_failure_in_the_body_reads_on_while_the_reader_does) {
    fsm_t f;
    written(f, false);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.after = reading()});
    f.resume(bytes());
    BOOST_TEST(f.resume(fsm_t::parsed{.ec = http::error::bad_chunk, .after = reading()}) == act::fail_read);
    BOOST_TEST(f.resume(reading()) == act::read);
    BOOST_TEST(f.resume(failed(net::error::connection_reset)) == act::fail_read);
    BOOST_TEST(f.resume(fsm_t::fed{.finished = true, .header_done = true, .outcome = error_class::bad_http,
                                   .status = 200}) == act::finish);
    BOOST_TEST(f.text() == failure_text::body);
    // The message quotes the last read error the reader was told of.
    BOOST_TEST(f.error() == boost::system::error_code(net::error::connection_reset));
}

BOOST_AUTO_TEST_CASE(a_reader_finished_before_the_body_ends_ends_the_exchange) {
    fsm_t f;
    written(f, false);
    f.resume(bytes());
    fsm_t::fed broke{.finished = true, .header_done = true, .outcome = error_class::bad_chunk, .status = 200};
    BOOST_TEST(f.resume(fsm_t::parsed{.after = broke}) == act::finish);
    BOOST_TEST(f.result().failure == error_class::bad_chunk);
    BOOST_TEST(f.text() == failure_text::response);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::close);
}

BOOST_AUTO_TEST_CASE(a_redirect_says_where) {
    fsm_t f;
    written(f, false);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.done = true, .after = reading()});
    fsm_t::fed end = whole();
    end.outcome = error_class::http_3xx;
    end.status = 302;
    BOOST_TEST(f.resume(end) == act::finish);
    BOOST_TEST(f.text() == failure_text::redirect);
}

BOOST_AUTO_TEST_CASE(begin_forgets_the_last_exchange) {
    fsm_t f;
    written(f, true);
    f.resume(bytes());
    f.resume(fsm_t::parsed{.ec = http::error::bad_version, .after = {}});
    f.resume(fsm_t::fed{.finished = true, .outcome = error_class::bad_http});
    f.resume(fsm_t::settle{});
    written(f, true);
    closed_unanswered(f, net::error::eof);  // nothing back this time
    BOOST_TEST(f.result().nothing_received);
    BOOST_TEST(f.resume(fsm_t::settle{}) == act::retry);
}

BOOST_AUTO_TEST_SUITE_END()
