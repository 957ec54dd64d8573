#include "openloop/watch/listen_address.hpp"

#include "openloop/base/input_error.hpp"

#include <boost/asio/ip/address.hpp>

#include <charconv>

namespace openloop {

listen_address parse_listen_address(std::string_view text, std::string_view flag) {
    const auto bad = [&](const std::string& why) {
        return input_error(std::string(flag) + " '" + std::string(text) + "': " + why +
                           " (expected HOST:PORT, e.g. 127.0.0.1:9464, [::1]:9464 or :9464 for all interfaces)");
    };
    const auto colon = text.rfind(':');
    if (colon == std::string_view::npos) {
        throw bad("no port");
    }
    std::string_view host = text.substr(0, colon);
    const std::string_view port_text = text.substr(colon + 1);
    unsigned port = 0;
    const auto r = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (port_text.empty() || r.ec != std::errc() || r.ptr != port_text.data() + port_text.size() || port > 65535) {
        throw bad("the port must be a number from 0 to 65535");
    }
    listen_address out;
    out.port = static_cast<std::uint16_t>(port);
    if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
        host = host.substr(1, host.size() - 2);
        if (host.find(':') == std::string_view::npos) {
            throw bad("brackets are for IPv6 addresses");
        }
    } else if (host.find(':') != std::string_view::npos) {
        throw bad("an IPv6 address goes in brackets");
    }
    if (host.empty()) {
        return out;  // all interfaces
    }
    if (host == "localhost") {
        out.host = "127.0.0.1";
        out.loopback = true;
        return out;
    }
    boost::system::error_code ec;
    const auto address = boost::asio::ip::make_address(std::string(host), ec);
    if (ec) {
        throw bad("'" + std::string(host) + "' is not an IP address");
    }
    out.host = address.to_string();
    out.loopback = address.is_loopback();
    if (address.is_unspecified()) {
        out.host.clear();
    }
    return out;
}

}  // namespace openloop
