#include <boost/test/unit_test.hpp>

#include "openloop/wire/target.hpp"

#include <stdexcept>
#include <string>

BOOST_AUTO_TEST_SUITE(unit_target)

using namespace openloop;

namespace {

std::string error_of(const std::string& url) {
    try {
        parse_target_url(url);
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(bad_targets_name_the_flag_the_url_and_the_fault) {
    BOOST_TEST(error_of("127.0.0.1:8000") ==
               "--target '127.0.0.1:8000': expected http://HOST[:PORT][/PATH], https://..., or sim:PRESET");
    BOOST_TEST(error_of("http://:80") == "--target 'http://:80': missing host");
    BOOST_TEST(error_of("http://h:99999") == "--target 'http://h:99999': bad port '99999'");
    BOOST_TEST(error_of("http://[::1/v1") == "--target 'http://[::1/v1': unterminated IPv6 address");
    BOOST_TEST(error_of("http://[::1]x/v1") == "--target 'http://[::1]x/v1': unexpected text after the IPv6 address");
    BOOST_TEST(error_of("http://h/v1?x=1") == "--target 'http://h/v1?x=1': a query or fragment is not allowed");
    BOOST_TEST(error_of("http://h?x=1") == "--target 'http://h?x=1': a query or fragment is not allowed");
}

BOOST_AUTO_TEST_CASE(credentials_are_refused_without_being_repeated) {
    const std::string e = error_of("http://user:secret@h/v1");
    BOOST_TEST(e == "--target 'http://[redacted]@h/v1': credentials in the URL are not supported; use --header or the "
                    "API key variable");
}

BOOST_AUTO_TEST_CASE(an_unbracketed_ipv6_address_keeps_its_colons) {
    const target_url t = parse_target_url("http://::1:8000/v1");
    BOOST_TEST(t.host == "::1");
    BOOST_TEST(t.port == "8000");
    BOOST_TEST(t.host_header == "[::1]:8000");
    BOOST_TEST(t.display() == "http://[::1]:8000/v1");
}

BOOST_AUTO_TEST_SUITE_END()
