#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/watch/listen_address.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_listen_address)

using openloop::parse_listen_address;

BOOST_AUTO_TEST_CASE(loopback_and_all_interfaces) {
    auto a = parse_listen_address("127.0.0.1:9464");
    BOOST_TEST(a.host == "127.0.0.1");
    BOOST_TEST(a.port == 9464);
    BOOST_TEST(a.loopback);
    a = parse_listen_address("[::1]:9464");
    BOOST_TEST(a.host == "::1");
    BOOST_TEST(a.loopback);
    a = parse_listen_address("localhost:0");
    BOOST_TEST(a.host == "127.0.0.1");
    BOOST_TEST(a.port == 0);
    BOOST_TEST(a.loopback);
    for (const char* all : {":9464", "0.0.0.0:9464", "[::]:9464"}) {
        a = parse_listen_address(all);
        BOOST_TEST(a.host == "", all);
        BOOST_TEST(!a.loopback, all);
        BOOST_TEST(a.port == 9464, all);
    }
    a = parse_listen_address("192.168.1.5:65535");
    BOOST_TEST(a.host == "192.168.1.5");
    BOOST_TEST(a.port == 65535);
    BOOST_TEST(!a.loopback);
}

BOOST_AUTO_TEST_CASE(bad_addresses_name_the_flag_and_the_value) {
    for (const char* bad : {"9464", "127.0.0.1:", "127.0.0.1:65536", "127.0.0.1:94x", "::1:9464", "[1.2.3.4]:80",
                            "example.com:9464", "127.0.0.1:-1"}) {
        BOOST_TEST_CONTEXT(bad) {
            try {
                parse_listen_address(bad);
                BOOST_FAIL("accepted");
            } catch (const openloop::input_error& e) {
                const std::string what = e.what();
                BOOST_TEST(what.find("--metrics-listen") != std::string::npos);
                BOOST_TEST(what.find(std::string("'") + bad + "'") != std::string::npos);
            }
        }
    }
}

BOOST_AUTO_TEST_SUITE_END()
