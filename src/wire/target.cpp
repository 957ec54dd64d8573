#include "openloop/wire/target.hpp"

#include "openloop/base/url.hpp"

#include <stdexcept>

namespace openloop {

std::string target_url::display() const {
    const bool v6 = host.find(':') != std::string::npos;
    return std::string(tls ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" + port + base_path;
}

target_url parse_target_url(std::string_view url) {
    const auto fail = [&](const std::string& why) {
        return std::invalid_argument("--target '" + redact_userinfo(url) + "': " + why);
    };
    url_parts u;
    switch (parse_url(url, u)) {
    case url_fault::none: break;
    case url_fault::no_scheme: throw fail("expected http://HOST[:PORT][/PATH], https://..., or sim:PRESET");
    case url_fault::credentials:
        throw fail("credentials in the URL are not supported; use --header or the API key variable");
    case url_fault::unclosed_bracket: throw fail("unterminated IPv6 address");
    case url_fault::junk_after_bracket: throw fail("unexpected text after the IPv6 address");
    case url_fault::no_host: throw fail("missing host");
    case url_fault::empty_port: throw fail("empty port");
    case url_fault::bad_port: throw fail("bad port '" + std::string(u.port) + "'");
    }
    target_url t;
    t.tls = u.tls;
    t.host = std::string(u.host);
    t.port = std::string(u.port);
    std::string_view path = u.rest;
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (path.find_first_of("?#") != std::string_view::npos) throw fail("a query or fragment is not allowed");
    t.base_path = std::string(path);
    const bool default_port = t.port == (t.tls ? "443" : "80");
    const std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
    t.host_header = default_port ? host : host + ":" + t.port;
    return t;
}

}  // namespace openloop
