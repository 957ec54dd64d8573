#include "openloop/wire/request_writer.hpp"

namespace openloop {

std::string build_http_request(const client_options& o, std::string_view request_id, std::string_view json_body) {
    std::string s;
    s.reserve(json_body.size() + 256);
    s.append("POST ").append(o.path).append(" HTTP/1.1\r\nHost: ").append(o.target.host_header);
    s.append("\r\nUser-Agent: openloop/" OPENLOOP_VERSION "\r\nAccept: text/event-stream\r\n");
    s.append("Content-Type: application/json\r\nx-request-id: ").append(request_id).append("\r\n");
    for (const auto& [k, v] : o.headers) s.append(k).append(": ").append(v).append("\r\n");
    s.append("Content-Length: ").append(std::to_string(json_body.size())).append("\r\n\r\n");
    s.append(json_body);
    return s;
}

}  // namespace openloop
