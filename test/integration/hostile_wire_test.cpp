#include <boost/test/unit_test.hpp>

// Hostile servers that break HTTP itself: endless or huge headers, broken
// chunked encoding, lying lengths, garbage, resets, silence. Each case runs
// the real `openloop run` against a raw server and checks that it ends by
// itself within its bound, writes summary.json, keeps its RSS bounded, and
// counts every request in the documented error class. Memory per connection
// is capped by the response parser's header limit (64 KiB), the SSE event
// bound (16 MiB) and --max-body (256 MiB, counted, not held: bodies are read
// through a 4 KiB buffer).

#include "hostile_case.hpp"
#include "hostile_server.hpp"
#include "hostile_sse.hpp"

#include <cstdint>
#include <string>

BOOST_AUTO_TEST_SUITE(it_hostile_wire)

using namespace std::chrono_literals;
using hostile::connection;
using hostile::hostile_case;
using hostile::request;
using hostile::five;
using hostile::small_rss_mib;
using hostile::operator+;

namespace {

constexpr const char* suite = "hostile_wire";




// Sends bytes from make(i) until the peer hangs up (or the server stops).
template <class Make>
void send_forever(connection& c, Make make) {
    for (std::uint64_t i = 0; c.send(make(i)); ++i) {
    }
}

std::string block(char ch, std::size_t n) { return std::string(n, ch); }

}  // namespace

BOOST_AUTO_TEST_CASE(endless_headers) {
    hostile::server srv([](connection& c, const request&) {
        if (!c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n")) return false;
        const std::string batch = [] {
            std::string s;
            for (int i = 0; i < 512; ++i) s += "X-Hostile-" + std::to_string(i) + ": " + block('h', 100) + "\r\n";
            return s;
        }();
        send_forever(c, [&](std::uint64_t) -> const std::string& { return batch; });
        return false;
    });
    hostile_case k({suite, "endless_headers", "200, then header lines forever, as fast as the socket takes them",
                    "bad_http", "the header limit (64 KiB)", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(endless_headers_slow) {
    hostile::server srv([](connection& c, const request&) {
        if (!c.send("HTTP/1.1 200 OK\r\n")) return false;
        for (int i = 0; c.send("X-Slow-" + std::to_string(i) + ": drip\r\n") && c.pause(50ms); ++i) {
        }
        return false;
    });
    hostile_case k({suite, "endless_headers_slow", "200, then one header line every 50 ms forever",
                    "timeout_first_token", "--first-token-timeout 1s", 12, small_rss_mib});
    k.run(srv.url(), five + std::vector<std::string>{"--first-token-timeout", "1s"});
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(huge_header_line) {
    hostile::server srv([](connection& c, const request&) {
        if (!c.send("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Big: ")) return false;
        const std::string mib = block('a', 1 << 20);
        for (int i = 0; i < 10; ++i)
            if (!c.send(mib)) return false;
        if (c.send("\r\n\r\n")) c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "huge_header_line", "200, then one header line of 10 MB", "bad_http",
                    "the header limit (64 KiB)", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(bad_chunk_size) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send(hostile::sse_chunked_head) && c.send_chunk(hostile::role_event() + hostile::content_event()) &&
            c.send("zz\r\nnot a chunk\r\n"))
            c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "bad_chunk_size", "chunked SSE: one good chunk, then the chunk size 'zz'", "bad_http",
                    "the parser's first error", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(chunk_size_overflow) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send(hostile::sse_chunked_head) && c.send("fffffffffffffffffffff\r\n")) c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "chunk_size_overflow", "chunked SSE whose first chunk size (21 hex digits) overflows 64 bits",
                    "bad_http", "the parser's first error", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(chunk_over_max_body) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send(hostile::sse_chunked_head) && c.send("10000000000\r\n")) c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "chunk_over_max_body", "chunked SSE whose first chunk declares 1 TiB", "body_too_large",
                    "--max-body (256 MiB), at the chunk header", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(content_length_huge) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send(hostile::head_with_length("HTTP/1.1 200 OK", "text/event-stream", 10'000'000'000'000)))
            c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "content_length_huge", "200 SSE declaring Content-Length 10 TB", "body_too_large",
                    "--max-body (256 MiB), at the header", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(garbage) {
    hostile::server srv([](connection& c, const request&) {
        // xorshift64: the same bytes every run.
        std::uint64_t x = 0x9E3779B97F4A7C15u;
        std::string buf(65536, '\0');
        send_forever(c, [&](std::uint64_t) -> const std::string& {
            for (auto& ch : buf) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                ch = static_cast<char>(x);
            }
            return buf;
        });
        return false;
    });
    hostile_case k({suite, "garbage", "random bytes forever, no status line", "bad_http",
                    "the header limit (64 KiB)", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(not_http) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n\r\n")) c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "not_http", "an SSH banner and a blank line, then silence", "bad_http",
                    "the parser's first error", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(content_length_short) {
    hostile::server srv([](connection& c, const request&) {
        const std::string body = hostile::role_event() + hostile::content_event() + hostile::content_event();
        c.send(hostile::head_with_length("HTTP/1.1 200 OK", "text/event-stream", 100'000) + body);
        return false;  // and close, 100 kB short
    });
    hostile_case k({suite, "content_length_short", "200 SSE declaring 100000 bytes, two content chunks, then close",
                    "stream_truncated", "the connection's end", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

// The declared length ends after the first content chunk; the rest of the
// stream follows it on a connection kept alive. Read as declared, the
// response ends mid-stream; reusing the connection would read the rest as the
// next response (the server would then see two requests on one connection).
BOOST_AUTO_TEST_CASE(content_length_long) {
    hostile::server srv([](connection& c, const request&) {
        const std::string first = hostile::role_event() + hostile::content_event();
        c.send(hostile::head_with_length("HTTP/1.1 200 OK", "text/event-stream", first.size()) +
               hostile::clean_stream(3));
        return true;
    });
    hostile_case k({suite, "content_length_long",
                    "200 SSE declaring the length of its first content chunk, then the whole stream, kept alive",
                    "stream_truncated", "the declared length; no reuse", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.check(srv.most_requests_per_connection() == 1,
            "no connection reused after a response that overran its length (most requests on one connection: " +
                std::to_string(srv.most_requests_per_connection()) + ")");
    k.server_saw(srv);
}

// A clean, complete response followed by bytes nobody asked for: the
// response stands, the connection does not carry another request.
BOOST_AUTO_TEST_CASE(trailing_bytes) {
    hostile::server srv([](connection& c, const request&) {
        const std::string stream = hostile::clean_stream(3);
        c.send(hostile::head_with_length("HTTP/1.1 200 OK", "text/event-stream", stream.size()) + stream +
               "\x01\x02 these bytes answer no request\r\n\r\n");
        return true;
    });
    hostile_case k({suite, "trailing_bytes", "a clean 200 SSE with an exact Content-Length, then 40 stray bytes, kept alive",
                    "ok", "no reuse of that connection", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.check(srv.most_requests_per_connection() == 1,
            "no connection reused with stray bytes pending (most requests on one connection: " +
                std::to_string(srv.most_requests_per_connection()) + ")");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(reset_mid_stream) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send(hostile::sse_chunked_head) && c.send_chunk(hostile::role_event()) &&
            c.send_chunk(hostile::content_event()) && c.send_chunk(hostile::content_event()) && c.pause(20ms))
            c.reset();
        return false;
    });
    hostile_case k({suite, "reset_mid_stream", "200 SSE, two content chunks, then a TCP reset", "stream_truncated",
                    "the connection's end", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(close_after_accept) {
    hostile::server srv([](connection&, const request&) { return false; }, hostile::on_accept::close);
    hostile_case k({suite, "close_after_accept", "every connection closed as soon as it is accepted",
                    "stream_truncated", "the connection's end", 10, small_rss_mib});
    k.run(srv.url(), five);
    k.expect_outcome(5);
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(silence) {
    hostile::server srv([](connection& c, const request&) {
        c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "silence", "accepts, reads the request, never answers", "timeout_first_token",
                    "--first-token-timeout 500ms", 10, small_rss_mib});
    k.run(srv.url(), five + std::vector<std::string>{"--first-token-timeout", "500ms"});
    k.expect_outcome(5);
    k.check(srv.requests() == 5, "the server read all 5 requests (read " + std::to_string(srv.requests()) + ")");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(silence_until_drain) {
    hostile::server srv([](connection& c, const request&) {
        c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "silence_until_drain", "accepts, reads the request, never answers; no request timeout",
                    "cancelled_at_end", "--drain 1s", 10, small_rss_mib});
    k.run(srv.url(), five + std::vector<std::string>{"--drain", "1s"});
    k.expect_outcome(5);
    k.server_saw(srv);
}

// Silent from the first call on: the tokenize probe waits --timeout once (no other dialect is
// tried; it took 90 s before), then the requests time out as under `silence`.
BOOST_AUTO_TEST_CASE(silence_from_the_tokenizer_probe) {
    hostile::server srv([](connection& c, const request&) {
        c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "silence_from_the_tokenizer_probe",
                    "accepts, reads the request, never answers, the tokenize probe before the run included",
                    "timeout_total", "--timeout 1s (the probe waits it once)", 10, small_rss_mib, true});
    k.run(srv.url(), five + std::vector<std::string>{"--timeout", "1s"});
    k.expect_outcome(5);
    k.check(srv.requests() == 6, "the server read one tokenize probe and 5 requests (read " +
                                     std::to_string(srv.requests()) + ")");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_CASE(huge_error_body) {
    hostile::server srv([](connection& c, const request&) {
        constexpr std::size_t size = 100u << 20;
        if (!c.send("HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/html\r\nContent-Length: " +
                    std::to_string(size) + "\r\n\r\n"))
            return false;
        const std::string page = block('e', 1 << 16);
        for (std::size_t sent = 0; sent < size && c.send(page); sent += page.size()) {
        }
        return false;
    });
    hostile_case k({suite, "huge_error_body", "500 with a 100 MB text/html body", "http_5xx",
                    "--max-body (256 MiB); the body is not held", 15, small_rss_mib});
    k.run(srv.url(), {"--rate", "20", "--num-requests", "3"});
    k.expect_outcome(3);
    k.server_saw(srv);
}

namespace {

// A body left open past [DONE]: every request completes without waiting for
// the drain, none is said to be in flight, and no connection is used again.
void completes_at_done(hostile_case& k, hostile::server& srv) {
    k.run(srv.url(), five + std::vector<std::string>{"--drain", "60s"});
    k.expect_outcome(5);
    k.check(k.observed().log.find("still in flight") == std::string::npos, "no request reported still in flight");
    k.check(srv.most_requests_per_connection() == 1,
            "no connection reused after a body that did not end (most requests on one connection: " +
                std::to_string(srv.most_requests_per_connection()) + ")");
    k.server_saw(srv);
}

}  // namespace

// A stream complete to its [DONE] whose Content-Length promised 1000 bytes
// more, on a connection kept open: the request is complete at [DONE], and
// neither waits for the body's end nor holds the run until its drain; the
// connection, its framing broken, carries nothing more.
BOOST_AUTO_TEST_CASE(content_length_past_done) {
    hostile::server srv([](connection& c, const request&) {
        const std::string stream = hostile::clean_stream(3);
        if (c.send(hostile::head_with_length("HTTP/1.1 200 OK", "text/event-stream", stream.size() + 1000) + stream))
            c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "content_length_past_done",
                    "a clean 200 SSE to [DONE] declaring 1000 bytes more than it sends, kept open", "ok",
                    "0.5 s after [DONE]; no reuse; --drain 60s not waited", 10, small_rss_mib});
    completes_at_done(k, srv);
}

// The same with chunked encoding: [DONE], then neither the last chunk nor a close.
BOOST_AUTO_TEST_CASE(chunked_unended_after_done) {
    hostile::server srv([](connection& c, const request&) {
        if (c.send(hostile::sse_chunked_head) && c.send_chunk(hostile::clean_stream(3))) c.wait_for_close();
        return false;
    });
    hostile_case k({suite, "chunked_unended_after_done", "chunked 200 SSE to [DONE], then no last chunk, kept open",
                    "ok", "0.5 s after [DONE]; no reuse; --drain 60s not waited", 10, small_rss_mib});
    completes_at_done(k, srv);
}

// A gateway redirecting every request (a base URL missing its slash): its own
// class, the message says where it pointed, and 8 of them stop the run as a
// wrong path would.
BOOST_AUTO_TEST_CASE(redirect) {
    hostile::server srv([](connection& c, const request&) {
        return c.send("HTTP/1.1 308 Permanent Redirect\r\nLocation: http://127.0.0.1/gateway/v1/chat/completions\r\n"
                      "Content-Type: text/html\r\nContent-Length: 6\r\n\r\nMoved.");
    });
    hostile_case k({suite, "redirect", "308 to another path, with a text/html body, kept alive", "http_3xx",
                    "the first 8 stop the run", 10, small_rss_mib});
    k.run(srv.url(), {"--rate", "20", "--num-requests", "20"});
    k.expect_outcome(8, {"cancelled"});
    k.check(k.observed().exit_status == 3, "exit status 3 (stopped early), got " + std::to_string(k.observed().exit_status));
    const std::string said = k.first_message("http_3xx");
    k.check(said.find("redirected to http://127.0.0.1/gateway/v1/chat/completions") == 0 &&
                said.find("does not follow redirects") != std::string::npos,
            "the message names where it pointed: \"" + said + "\"");
    k.check(k.observed().log.find("stopping early: the first 8 requests all failed with HTTP 308: \"redirected to") !=
                std::string::npos,
            "the run stopped early naming HTTP 308 and where it pointed");
    k.server_saw(srv);
}

// Out of file descriptors (RLIMIT_NOFILE 100, 300 requests due within 0.1 s,
// each answered after a second): the requests that found no descriptor fail
// in fd_limit, naming EMFILE, the limit and how to raise it; the run neither
// stops early nor blames the server, and those that got a socket complete.
BOOST_AUTO_TEST_CASE(out_of_descriptors) {
    hostile::server srv([](connection& c, const request&) {
        return c.pause(1s) && hostile::send_sse_chunked(c, hostile::clean_stream(3));
    });
    hostile_case k({suite, "out_of_descriptors", "300 requests due at once, each answered after 1 s, ulimit -n 100",
                    "fd_limit", "RLIMIT_NOFILE 100", 15, small_rss_mib});
    k.limit_open_files(100);
    k.run(srv.url(), {"--rate", "3000", "--num-requests", "300"});
    k.expect_outcome(100, {"ok"});
    const auto& o = k.observed();
    k.check(o.classes.count("ok") && o.classes.at("ok") >= 20,
            "the requests that got a descriptor completed (" + hostile::describe(o.classes) + ")");
    // INVALID (the generator could not send), not too many errors: the server is not blamed.
    k.check(o.exit_status == 3, "exit status 3 (invalid), got " + std::to_string(o.exit_status));
    k.check(o.log.find("never sent (fd_limit), not counted") != std::string::npos, "the table counts them apart");
    k.check(o.log.find("stopping early") == std::string::npos, "the run did not stop early");
    const std::string said = k.first_message("fd_limit");
    k.check(said.find("out of file descriptors (EMFILE)") != std::string::npos &&
                said.find("its limit is 100 open files") != std::string::npos &&
                said.find("ulimit -Hn") != std::string::npos,
            "the message says EMFILE, the limit and how to raise it: \"" + said + "\"");
    k.check(o.log.find("openloop ran out of file descriptors") != std::string::npos,
            "the verdict names openloop's own limit");
    k.server_saw(srv);
}

BOOST_AUTO_TEST_SUITE_END()
