#include <boost/test/unit_test.hpp>

#include "openloop/wire/exchange.hpp"
#include "printing.hpp"

#include <boost/asio/error.hpp>
#include <boost/asio/ssl/error.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/http/error.hpp>

#include <ostream>

BOOST_AUTO_TEST_SUITE(unit_classify)

using namespace openloop;
namespace net = boost::asio;
namespace http = boost::beast::http;

error_class of(boost::system::error_code ec) { return classify(ec, error_class::timeout_idle, false); }

// Bytes that are not HTTP/1.1 are bad_http; a socket's own failures stay io.
BOOST_AUTO_TEST_CASE(parser_errors_are_bad_http) {
    for (const http::error e : {http::error::bad_version, http::error::bad_status, http::error::bad_reason,
                                http::error::bad_field, http::error::bad_value, http::error::bad_line_ending,
                                http::error::bad_content_length, http::error::bad_transfer_encoding,
                                http::error::bad_chunk, http::error::bad_chunk_extension, http::error::bad_obs_fold,
                                http::error::header_limit})
        BOOST_TEST(of(http::make_error_code(e)) == error_class::bad_http, http::make_error_code(e).message());
}

BOOST_AUTO_TEST_CASE(what_is_not_bad_http) {
    BOOST_TEST(of(http::error::partial_message) == error_class::stream_truncated);
    BOOST_TEST(of(http::error::end_of_stream) == error_class::stream_truncated);
    BOOST_TEST(of(net::error::eof) == error_class::stream_truncated);
    BOOST_TEST(of(net::error::connection_reset) == error_class::stream_truncated);
    BOOST_TEST(of(net::ssl::error::stream_truncated) == error_class::stream_truncated);
    BOOST_TEST(of(http::error::body_limit) == error_class::body_too_large);
    BOOST_TEST(of(boost::beast::error::timeout) == error_class::timeout_idle);
    BOOST_TEST(of(net::error::operation_aborted) == error_class::cancelled);
    BOOST_TEST(classify(http::error::bad_version, error_class::timeout_idle, true) == error_class::cancelled);
    BOOST_TEST(of(net::error::network_unreachable) == error_class::io);
    BOOST_TEST(of(net::error::no_buffer_space) == error_class::io);
}

BOOST_AUTO_TEST_SUITE_END()
