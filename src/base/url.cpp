#include "openloop/base/url.hpp"

#include <charconv>

namespace openloop {

namespace {

// The scheme's length ("http://", "https://"), or 0.
std::size_t scheme_size(std::string_view url) {
    if (url.starts_with("http://")) return 7;
    if (url.starts_with("https://")) return 8;
    return 0;
}

}  // namespace

url_fault parse_url(std::string_view url, url_parts& out) {
    out = {};
    const std::size_t scheme = scheme_size(url);
    if (scheme == 0) return url_fault::no_scheme;
    out.tls = scheme == 8;
    const std::string_view after_scheme = url.substr(scheme);
    const auto end = after_scheme.find_first_of("/?#");
    const std::string_view authority = after_scheme.substr(0, end);
    out.rest = end == std::string_view::npos ? std::string_view{} : after_scheme.substr(end);
    if (authority.find('@') != std::string_view::npos) return url_fault::credentials;
    std::string_view port;
    bool has_port = false;
    if (authority.starts_with("[")) {
        const auto close = authority.find(']');
        if (close == std::string_view::npos) return url_fault::unclosed_bracket;
        out.host = authority.substr(1, close - 1);
        const std::string_view after = authority.substr(close + 1);
        if (!after.empty() && after.front() != ':') return url_fault::junk_after_bracket;
        has_port = !after.empty();
        if (has_port) port = after.substr(1);
    } else {
        // The last ':': an unbracketed IPv6 address keeps its colons.
        const auto colon = authority.rfind(':');
        out.host = authority.substr(0, colon);
        has_port = colon != std::string_view::npos;
        if (has_port) port = authority.substr(colon + 1);
    }
    if (out.host.empty()) return url_fault::no_host;
    if (has_port && port.empty()) return url_fault::empty_port;
    if (!has_port) {
        out.port = out.tls ? "443" : "80";
        return url_fault::none;
    }
    unsigned n = 0;
    const auto [stop, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
    if (ec != std::errc{} || stop != port.data() + port.size() || n == 0 || n > 65535) {
        out.port = port;  // for the message
        return url_fault::bad_port;
    }
    out.port = port;
    return url_fault::none;
}

std::string redact_userinfo(std::string_view url) {
    const std::size_t scheme = scheme_size(url);
    const std::string_view after_scheme = url.substr(scheme);
    const std::string_view authority = after_scheme.substr(0, after_scheme.find_first_of("/?#"));
    const auto at = authority.find('@');
    if (at == std::string_view::npos) return std::string(url);
    return std::string(url.substr(0, scheme)) + "[redacted]" + std::string(after_scheme.substr(at));
}

}  // namespace openloop
