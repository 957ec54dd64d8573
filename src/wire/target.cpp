#include "openloop/wire/target.hpp"

#include <charconv>
#include <stdexcept>

namespace openloop {

std::string target_url::display() const {
    const bool v6 = host.find(':') != std::string::npos;
    return std::string(tls ? "https://" : "http://") + (v6 ? "[" + host + "]" : host) + ":" + port + base_path;
}

target_url parse_target_url(std::string_view url) {
    target_url t;
    const auto fail = [&](const std::string& why) {
        return std::invalid_argument("--target '" + std::string(url) + "': " + why);
    };
    std::string_view rest;
    if (url.rfind("http://", 0) == 0) {
        rest = url.substr(7);
    } else if (url.rfind("https://", 0) == 0) {
        t.tls = true;
        rest = url.substr(8);
    } else {
        throw fail("expected http://HOST[:PORT][/PATH], https://..., or sim:PRESET");
    }
    const auto slash = rest.find('/');
    std::string_view authority = rest.substr(0, slash);
    std::string_view path = slash == std::string_view::npos ? std::string_view{} : rest.substr(slash);
    if (authority.find('@') != std::string_view::npos)
        throw fail("credentials in the URL are not supported; use --header or the API key variable");
    if (authority.empty()) throw fail("missing host");
    std::string_view port;
    if (authority.front() == '[') {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) throw fail("unterminated IPv6 address");
        t.host = std::string(authority.substr(1, close - 1));
        if (close + 1 < authority.size()) {
            if (authority[close + 1] != ':') throw fail("unexpected text after the IPv6 address");
            port = authority.substr(close + 2);
        }
    } else {
        const auto colon = authority.rfind(':');
        t.host = std::string(authority.substr(0, colon));
        if (colon != std::string_view::npos) port = authority.substr(colon + 1);
    }
    if (t.host.empty()) throw fail("missing host");
    if (!port.empty()) {
        unsigned p = 0;
        auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), p);
        if (ec != std::errc() || end != port.data() + port.size() || p == 0 || p > 65535)
            throw fail("bad port '" + std::string(port) + "'");
        t.port = std::string(port);
    } else {
        t.port = t.tls ? "443" : "80";
    }
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (path.find_first_of("?#") != std::string_view::npos) throw fail("a query or fragment is not allowed");
    t.base_path = std::string(path);
    const bool default_port = t.port == (t.tls ? "443" : "80");
    const std::string host = t.host.find(':') != std::string::npos ? "[" + t.host + "]" : t.host;
    t.host_header = default_port ? host : host + ":" + t.port;
    return t;
}

}  // namespace openloop
