#include <boost/test/unit_test.hpp>

#include "openloop/base/input_error.hpp"
#include "openloop/watch/scraper.hpp"

#include <string>

BOOST_AUTO_TEST_SUITE(unit_scrape_url)

using namespace openloop;

BOOST_AUTO_TEST_CASE(http_with_port_and_path) {
    const auto u = parse_scrape_url("http://127.0.0.1:8000/metrics");
    BOOST_TEST(!u.tls);
    BOOST_TEST(u.host == "127.0.0.1");
    BOOST_TEST(u.port == "8000");
    BOOST_TEST(u.target == "/metrics");
    BOOST_TEST(u.text == "http://127.0.0.1:8000/metrics");
}

BOOST_AUTO_TEST_CASE(defaults) {
    const auto a = parse_scrape_url("https://gpu-node");
    BOOST_TEST(a.tls);
    BOOST_TEST(a.port == "443");
    BOOST_TEST(a.target == "/metrics");
    const auto b = parse_scrape_url("http://host?x=1");
    BOOST_TEST(b.port == "80");
    BOOST_TEST(b.target == "/?x=1");
    const auto c = parse_scrape_url("http://host:9400/");
    BOOST_TEST(c.target == "/");
}

BOOST_AUTO_TEST_CASE(ipv6_literal) {
    const auto u = parse_scrape_url("http://[::1]:9464/m");
    BOOST_TEST(u.host == "::1");
    BOOST_TEST(u.port == "9464");
    BOOST_TEST(u.target == "/m");
    BOOST_TEST(parse_scrape_url("http://[::1]").port == "80");
}

namespace {

std::string error_of(const std::string& url) {
    try {
        parse_scrape_url(url);
    } catch (const input_error& e) {
        return e.what();
    }
    return "";
}

}  // namespace

BOOST_AUTO_TEST_CASE(bad_urls_name_the_url_and_the_fault) {
    BOOST_TEST(error_of("127.0.0.1:8000/metrics") == "scrape URL '127.0.0.1:8000/metrics': needs http:// or https://");
    BOOST_TEST(error_of("ftp://h/x").find("needs http:// or https://") != std::string::npos);
    BOOST_TEST(error_of("http:///metrics").find("no host") != std::string::npos);
    BOOST_TEST(error_of("http://h:/m").find("empty port") != std::string::npos);
    BOOST_TEST(error_of("http://h:0").find("port must be 1..65535") != std::string::npos);
    BOOST_TEST(error_of("http://h:70000").find("port must be 1..65535") != std::string::npos);
    BOOST_TEST(error_of("http://h:80x").find("port must be 1..65535") != std::string::npos);
    BOOST_TEST(error_of("http://[::1/m").find("unclosed [") != std::string::npos);
    BOOST_TEST(error_of("http://[::1]x/m").find("junk after") != std::string::npos);
    const auto creds = error_of("http://user:secret@h/m");
    BOOST_TEST(creds == "scrape URL 'http://[redacted]@h/m': credentials in the URL are not supported");
    BOOST_TEST(creds.find("secret") == std::string::npos);
}

BOOST_AUTO_TEST_SUITE_END()
