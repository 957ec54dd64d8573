#pragma once
// The server a run talks to, as given by --target.

#include <string>
#include <string_view>

namespace openloop {

struct target_url {
    bool tls = false;
    std::string host;       // name or address (an IPv6 address without brackets)
    std::string port;       // defaults to 80 / 443
    std::string base_path;  // e.g. "/v1", no trailing slash
    std::string host_header;
    std::string display() const;  // scheme://host:port/base, never credentials
};
// Parses "http(s)://host[:port][/base]"; throws std::invalid_argument saying what is wrong.
target_url parse_target_url(std::string_view url);

}  // namespace openloop
