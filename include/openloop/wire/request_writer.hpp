#pragma once
// The bytes of a request, prepared ahead of its send time so that nothing on
// the send path formats text.

#include "openloop/wire/client_options.hpp"

#include <string>
#include <string_view>

namespace openloop {

// A request prepared ahead of its send time: the complete HTTP/1.1 bytes.
struct prepared_request {
    std::string bytes;
    int input_tokens = 0;
    int max_tokens = 0;
};
std::string build_http_request(const client_options& o, std::string_view request_id, std::string_view json_body);

}  // namespace openloop
