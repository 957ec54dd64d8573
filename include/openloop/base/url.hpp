#pragma once
// One parser for the http(s) URLs a user gives (--target, --scrape): the
// scheme, the host (an IPv6 literal in brackets), the port checked, and the
// rest (path, query, fragment) left to the caller, which words its own
// message for each fault. Pure; in base/ so that wire/ and watch/ both reach it.

#include <cstdint>
#include <string>
#include <string_view>

namespace openloop {

struct url_parts {
    bool tls = false;
    std::string_view host;  // an IPv6 literal without its brackets
    std::string_view port;  // 1..65535; "80" / "443" when the URL has none
    std::string_view rest;  // from the first '/', '?' or '#' after the host; empty when none
};

// What is wrong with a URL, the first thing found.
enum class url_fault : std::uint8_t {
    none,
    no_scheme,           // not http:// or https://
    credentials,         // user[:password]@ before the host
    unclosed_bracket,    // [ without ]
    junk_after_bracket,  // text between ] and the port
    no_host,
    empty_port,  // a ':' with nothing after it
    bad_port,    // not a number in 1..65535
};

// Splits url into out (views into url); none, or the first fault found.
url_fault parse_url(std::string_view url, url_parts& out);

// url with its user[:password]@ replaced by "[redacted]@", for messages that
// must not repeat a password they refuse.
std::string redact_userinfo(std::string_view url);

}  // namespace openloop
