#include <boost/test/unit_test.hpp>

#include "openloop/base/url.hpp"
#include "printing.hpp"

#include <ostream>

BOOST_AUTO_TEST_SUITE(unit_url)

using namespace openloop;

namespace {

url_fault fault_of(std::string_view url) {
    url_parts p;
    return parse_url(url, p);
}

}  // namespace

BOOST_AUTO_TEST_CASE(parts_of_a_url) {
    url_parts p;
    BOOST_TEST(parse_url("http://127.0.0.1:8000/v1/x?y=1", p) == url_fault::none);
    BOOST_TEST(!p.tls);
    BOOST_TEST(p.host == "127.0.0.1");
    BOOST_TEST(p.port == "8000");
    BOOST_TEST(p.rest == "/v1/x?y=1");
    BOOST_TEST(parse_url("https://gpu-node", p) == url_fault::none);
    BOOST_TEST(p.tls);
    BOOST_TEST(p.host == "gpu-node");
    BOOST_TEST(p.port == "443");
    BOOST_TEST(p.rest == "");
    BOOST_TEST(parse_url("http://h?x=1", p) == url_fault::none);  // the host ends at a query too
    BOOST_TEST(p.host == "h");
    BOOST_TEST(p.port == "80");
    BOOST_TEST(p.rest == "?x=1");
    BOOST_TEST(parse_url("http://h#frag", p) == url_fault::none);
    BOOST_TEST(p.host == "h");
    BOOST_TEST(p.rest == "#frag");
}

BOOST_AUTO_TEST_CASE(ipv6_hosts) {
    url_parts p;
    BOOST_TEST(parse_url("http://[::1]:9464/m", p) == url_fault::none);
    BOOST_TEST(p.host == "::1");
    BOOST_TEST(p.port == "9464");
    BOOST_TEST(p.rest == "/m");
    BOOST_TEST(parse_url("https://[fe80::1]", p) == url_fault::none);
    BOOST_TEST(p.host == "fe80::1");
    BOOST_TEST(p.port == "443");
    // Without brackets the last ':' starts the port.
    BOOST_TEST(parse_url("http://::1:8000", p) == url_fault::none);
    BOOST_TEST(p.host == "::1");
    BOOST_TEST(p.port == "8000");
}

BOOST_AUTO_TEST_CASE(faults) {
    BOOST_TEST(fault_of("127.0.0.1:8000") == url_fault::no_scheme);
    BOOST_TEST(fault_of("ftp://h/x") == url_fault::no_scheme);
    BOOST_TEST(fault_of("HTTP://h") == url_fault::no_scheme);
    BOOST_TEST(fault_of("http://user:pw@h/v1") == url_fault::credentials);
    BOOST_TEST(fault_of("http://[::1/m") == url_fault::unclosed_bracket);
    BOOST_TEST(fault_of("http://[::1]x/m") == url_fault::junk_after_bracket);
    BOOST_TEST(fault_of("http:///metrics") == url_fault::no_host);
    BOOST_TEST(fault_of("http://:80") == url_fault::no_host);
    BOOST_TEST(fault_of("http://[]:80") == url_fault::no_host);
    BOOST_TEST(fault_of("http://h:/m") == url_fault::empty_port);
    BOOST_TEST(fault_of("http://[::1]:") == url_fault::empty_port);
    BOOST_TEST(fault_of("http://h:0") == url_fault::bad_port);
    BOOST_TEST(fault_of("http://h:65536") == url_fault::bad_port);
    BOOST_TEST(fault_of("http://h:80x") == url_fault::bad_port);
    BOOST_TEST(fault_of("http://h:-1") == url_fault::bad_port);
    BOOST_TEST(fault_of("http://h:65535") == url_fault::none);
    url_parts p;
    BOOST_TEST(parse_url("http://h:99999/v1", p) == url_fault::bad_port);
    BOOST_TEST(p.port == "99999");  // what the message quotes
}

BOOST_AUTO_TEST_CASE(credentials_are_redacted) {
    BOOST_TEST(redact_userinfo("http://user:secret@h/m") == "http://[redacted]@h/m");
    BOOST_TEST(redact_userinfo("https://token@[::1]:8443") == "https://[redacted]@[::1]:8443");
    // An '@' past the host is not a password.
    BOOST_TEST(redact_userinfo("http://h/a@b") == "http://h/a@b");
    BOOST_TEST(redact_userinfo("http://h") == "http://h");
}

BOOST_AUTO_TEST_SUITE_END()
