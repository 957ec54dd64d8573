#pragma once
// The decisions of one request on one connection, without the socket: told
// what happened (the write ended, a read brought bytes or an error, the parser
// took them, the reader was fed), it says what the connection's worker does
// next: write, read, parse, end the body, fail the read in a class, and at the
// end whether the request goes again on a fresh connection and whether the
// connection carries the next request. The worker only writes, reads and
// timestamps (as Boost.Redis's reader_fsm::resume() returns its next action).
// Pure: what the unit tests drive through every case.

#include "openloop/measure/event.hpp"
#include "openloop/wire/exchange.hpp"

#include <boost/system/error_code.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <utility>

namespace openloop {

enum class exchange_action : std::uint8_t {
    write,      // write what is left of the request
    read,       // arm the deadline and read the next bytes
    parse,      // parse what the read brought
    put_eof,    // the peer closed after some of the response: tell the parser the body ends here
    complete,   // the message is whole: feed the reader the body's end
    fail_read,  // feed the reader the read's failure, in class read_failure()
    finish,     // the exchange is over: result() says how
    retry,      // the request goes again, on a fresh connection
    keep,       // the request ends; the connection carries the next one
    close,      // the request ends; the connection is closed
};

// Which text a failure's message is: the worker writes it (the reader's
// content type and body are what some say).
enum class failure_text : std::uint8_t { none, writing, headers, body, redirect, response };

// The deadline for the next read and the class it fails in: the request's
// (deadlines::next), or once the stream said [DONE] at most body_end_after_done,
// as idle: after [DONE] any failure completes the request.
std::pair<std::optional<deadlines::time_point>, error_class> read_deadline(const deadlines& dl, bool streaming,
                                                                          bool said_done, deadlines::time_point now);

class exchange_fsm {
public:
    using error_code = boost::system::error_code;

    // The request begins on its connection. pooled: the connection waited in
    // the pool first (the server may have closed it idle); retried: the
    // request already went again once.
    struct begin {
        bool pooled = false;
        bool retried = false;
    };
    // The request's write ended. timed_out: the deadline fired (an abort is a timeout).
    struct wrote {
        error_code ec{};
        bool timed_out = false;
        bool closing = false;
    };
    // A read completed. timeout_cls: what the deadline armed for it means.
    struct read {
        error_code ec{};
        bool got_bytes = false;
        bool timed_out = false;
        bool closing = false;
        error_class timeout_cls = error_class::io;
    };
    // How the reader and the connection stand after the reader was fed (by
    // the parser, with the body's end, or with a read's failure).
    struct fed {
        bool finished = false;
        bool header_done = false;  // the parser had the whole header block
        error_class outcome = error_class::none;
        int status = 0;
        std::int64_t answered_ns = 0;
        std::int64_t answer_tokens = -1;  // the reader's answer_tokens()
        bool at_body_end = false;  // the reader's ended_at_body_end()
        bool keep_alive = false;   // the parser's
        bool leftover = false;     // bytes past the message's end are held
    };
    // The parser took a read's bytes (ec: its error), or the end of the
    // stream (put_eof). done: it has the whole message.
    struct parsed {
        error_code ec{};
        bool done = false;
        fed after;
    };
    // The result is out: what becomes of the request and the connection.
    // reuse: the pool still puts connections back (some servers close each).
    struct settle {
        bool closing = false;
        bool reuse = true;
    };

    exchange_action resume(const begin& in);
    exchange_action resume(const wrote& in);
    exchange_action resume(const read& in);
    exchange_action resume(const parsed& in);
    exchange_action resume(const fed& in);
    exchange_action resume(const settle& in);

    // After fail_read: the class the reader is told.
    error_class read_failure() const { return read_failure_; }
    // After finish: the result, its message not yet written (text(), error()).
    const exchange_result& result() const { return result_; }
    failure_text text() const { return text_; }
    // The socket or parser error the message quotes.
    const error_code& error() const { return text_ == failure_text::body ? last_ec_ : ec_; }

private:
    enum class stage : std::uint8_t { writing, reading, parsing, at_eof, completing, failing, settling, over };

    exchange_action fail(error_code ec);
    exchange_action fail_read(error_code ec);
    exchange_action finish_reading(const fed& in);

    stage stage_ = stage::over;
    bool pooled_ = false;
    bool retried_ = false;
    bool got_bytes_ = false;  // a read brought some response: also when the parser got some
    bool closing_ = false;
    error_class timeout_cls_ = error_class::io;
    error_code ec_;       // the error the exchange meets now
    error_code last_ec_;  // the last read error the reader was told of, for a body failure's message
    error_class read_failure_ = error_class::none;
    exchange_result result_;
    failure_text text_ = failure_text::none;
};

}  // namespace openloop
