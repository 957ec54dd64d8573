#include "openloop/wire/request_writer.hpp"

#include "openloop/base/random.hpp"

#include <charconv>

namespace openloop {

namespace {

constexpr std::uint64_t span_salt = 0x3c6ef372fe94f82bULL;

void append_hex(std::string& out, std::uint64_t v) {
    constexpr char digits[] = "0123456789abcdef";
    for (int shift = 60; shift >= 0; shift -= 4) out.push_back(digits[(v >> shift) & 0xf]);
}

}  // namespace

std::size_t write_http_request(std::string& out, const client_options& o, std::string_view prefix, std::uint64_t index,
                               std::string_view json_body, std::int64_t session, std::size_t spliced_bytes) {
    char digits[24];
    out.clear();
    out.reserve(json_body.size() + 512);
    out.append("POST ").append(o.path).append(" HTTP/1.1\r\nHost: ").append(o.target.host_header);
    out.append("\r\nUser-Agent: openloop/" OPENLOOP_VERSION "\r\nAccept: text/event-stream\r\n");
    out.append("Content-Type: ").append(o.content_type).append("\r\nx-request-id: ").append(prefix);
    out.append(digits, std::to_chars(digits, digits + sizeof digits, index).ptr).append("\r\n");
    // W3C trace context: the trace id's first half is the request index (so a server's trace
    // finds its line in requests.jsonl), its second a hash of the run and the index.
    const std::uint64_t low = mix64(o.trace_key ^ mix64(index));
    out.append("traceparent: 00-");
    append_hex(out, index);
    append_hex(out, low | (index == 0 ? 1u : 0u));  // an all-zero trace id is invalid
    out.push_back('-');
    append_hex(out, mix64(low ^ span_salt) | 1u);  // and so is an all-zero span id
    out.append("-01\r\n");
    if (session >= 0) {
        out.append("X-Session-ID: ").append(prefix).append("session-");
        out.append(digits, std::to_chars(digits, digits + sizeof digits, session).ptr).append("\r\n");
    }
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
