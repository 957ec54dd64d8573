#pragma once
// The address a listening endpoint of ours binds (--metrics-listen), parsed
// from HOST:PORT. Pure: no resolver, only IP literals and "localhost".

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct listen_address {
    std::string host;          // an IP literal without brackets; "" = all interfaces
    std::uint16_t port = 0;    // 0: any free port (tests)
    bool loopback = false;     // false: reachable from other hosts, worth a warning
};

// "127.0.0.1:9464", "[::1]:9464", "localhost:9464" (127.0.0.1), ":9464",
// "0.0.0.0:9464" or "[::]:9464" (all interfaces). Throws input_error naming
// flag and what is wrong.
listen_address parse_listen_address(std::string_view text, std::string_view flag = "--metrics-listen");

}  // namespace openloop
