#include "openloop/wire/request_writer.hpp"

#include <charconv>

namespace openloop {

std::size_t write_http_request(std::string& out, const client_options& o, std::string_view prefix, std::uint64_t index,
                               std::string_view json_body, std::size_t spliced_bytes) {
    char digits[24];
    out.clear();
    out.reserve(json_body.size() + 256);
    out.append("POST ").append(o.path).append(" HTTP/1.1\r\nHost: ").append(o.target.host_header);
    out.append("\r\nUser-Agent: openloop/" OPENLOOP_VERSION "\r\nAccept: text/event-stream\r\n");
    out.append("Content-Type: application/json\r\nx-request-id: ").append(prefix);
    out.append(digits, std::to_chars(digits, digits + sizeof digits, index).ptr).append("\r\n");
    for (const auto& [k, v] : o.headers) out.append(k).append(": ").append(v).append("\r\n");
    out.append("Content-Length: ");
    out.append(digits, std::to_chars(digits, digits + sizeof digits, json_body.size() + spliced_bytes).ptr).append("\r\n\r\n");
    const std::size_t head = out.size();
    out.append(json_body);
    return head;
}

std::size_t body_size(const prepared_request& r) {
    std::size_t n = r.bytes.size() - r.head;
    for (const body_splice& s : r.splices) n += s.payload.size();
    return n;
}

}  // namespace openloop
