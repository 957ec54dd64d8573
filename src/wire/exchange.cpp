#include "openloop/wire/exchange.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

namespace openloop {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;

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

}  // namespace openloop
