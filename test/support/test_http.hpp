#pragma once
// A deliberately simple, blocking HTTP/1.1 client for integration tests: it is
// independent of openloop's own client, so a bug there cannot hide one here.

#include <boost/asio.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <boost/json.hpp>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace test_http {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
namespace ssl = net::ssl;
using tcp = net::ip::tcp;

struct response {
    int status = 0;
    std::map<std::string, std::string> headers;
    std::string body;
    boost::system::error_code error;  // set when the connection failed or broke mid-body
    double header_ms = 0;             // request sent -> headers received
    double total_ms = 0;              // request sent -> body complete (or error)
};

struct request_options {
    std::string method = "GET";
    std::string target = "/";
    std::string body;
    std::map<std::string, std::string> headers;
    std::string ca_file;   // https: verify the server against this CA
    bool tls = false;
    bool verify = true;
};

template <class Stream>
response exchange(Stream& stream, const request_options& o, unsigned short port) {
    response out;
    http::request<http::string_body> req{http::string_to_verb(o.method), o.target, 11};
    req.set(http::field::host, "127.0.0.1:" + std::to_string(port));
    req.set(http::field::content_type, "application/json");
    for (const auto& [k, v] : o.headers) req.set(k, v);
    req.body() = o.body;
    req.prepare_payload();
    const auto t0 = std::chrono::steady_clock::now();
    auto ms = [&] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
    http::write(stream, req, out.error);
    if (out.error) return out;
    beast::flat_buffer buf;
    http::response_parser<http::string_body> parser;
    parser.body_limit(1u << 30);
    http::read_header(stream, buf, parser, out.error);
    out.header_ms = ms();
    if (out.error) return out;
    out.status = static_cast<int>(parser.get().result_int());
    for (const auto& f : parser.get()) out.headers[std::string(f.name_string())] = std::string(f.value());
    http::read(stream, buf, parser, out.error);
    out.total_ms = ms();
    out.body = parser.get().body();
    return out;
}

inline response request(unsigned short port, const request_options& o) {
    net::io_context io;
    tcp::endpoint ep(net::ip::make_address("127.0.0.1"), port);
    if (!o.tls) {
        beast::tcp_stream stream(io);
        stream.expires_after(std::chrono::seconds(60));
        response out;
        stream.connect(ep, out.error);
        if (out.error) return out;
        out = exchange(stream, o, port);
        boost::system::error_code ignored;
        stream.socket().shutdown(tcp::socket::shutdown_both, ignored);
        return out;
    }
    ssl::context ctx(ssl::context::tls_client);
    if (o.verify) {
        ctx.set_verify_mode(ssl::verify_peer);
        if (!o.ca_file.empty()) ctx.load_verify_file(o.ca_file);
    }
    beast::ssl_stream<beast::tcp_stream> stream(io, ctx);
    beast::get_lowest_layer(stream).expires_after(std::chrono::seconds(60));
    response out;
    beast::get_lowest_layer(stream).connect(ep, out.error);
    if (out.error) return out;
    stream.set_verify_callback(ssl::host_name_verification("127.0.0.1"));
    stream.handshake(ssl::stream_base::client, out.error);
    if (out.error) return out;
    return exchange(stream, o, port);
}

inline response get(unsigned short port, const std::string& target) {
    request_options o;
    o.target = target;
    return request(port, o);
}

// The value of the unlabelled sample `name` served on port's /metrics (Prometheus text); -1 when
// nothing answered or the sample is absent.
inline double scraped(unsigned short port, const std::string& name) {
    const response r = get(port, "/metrics");
    const auto at = r.body.find("\n" + name + " ");
    return r.status != 200 || at == std::string::npos ? -1 : std::strtod(r.body.c_str() + at + name.size() + 2, nullptr);
}

inline response post(unsigned short port, const std::string& target, const std::string& body,
                     std::map<std::string, std::string> headers = {}) {
    request_options o;
    o.method = "POST";
    o.target = target;
    o.body = body;
    o.headers = std::move(headers);
    return request(port, o);
}

// The `data:` payloads of an SSE body, in order (events separated by a blank line).
inline std::vector<std::string> sse_data(const std::string& body) {
    std::vector<std::string> out;
    std::size_t pos = 0;
    while (pos < body.size()) {
        auto end = body.find("\n\n", pos);
        if (end == std::string::npos) end = body.size();
        std::string event = body.substr(pos, end - pos);
        std::string data;
        std::size_t lp = 0;
        while (lp < event.size()) {
            auto le = event.find('\n', lp);
            if (le == std::string::npos) le = event.size();
            std::string line = event.substr(lp, le - lp);
            if (line.rfind("data: ", 0) == 0) data += (data.empty() ? "" : "\n") + line.substr(6);
            lp = le + 1;
        }
        if (!data.empty()) out.push_back(data);
        pos = end + 2;
    }
    return out;
}

// A scratch directory removed at the end of the test.
struct temp_dir {
    std::filesystem::path path;
    temp_dir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "openloop-test-XXXXXX").string();
        path = mkdtemp(tmpl.data());
    }
    ~temp_dir() {
        std::error_code ec;
        std::filesystem::remove_all(path, ec);
    }
    std::string file(const std::string& name) const { return (path / name).string(); }
};

// A self-signed certificate valid for 127.0.0.1 and localhost, generated by
// the openssl command into dir; returns false when that fails.
inline bool make_self_signed(const temp_dir& dir, std::string& cert, std::string& key) {
    cert = dir.file("cert.pem");
    key = dir.file("key.pem");
    const std::string cmd = "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
                            "-addext subjectAltName=IP:127.0.0.1,DNS:localhost -keyout " + key + " -out " + cert +
                            " >/dev/null 2>&1";
    return std::system(cmd.c_str()) == 0;
}

}  // namespace test_http
