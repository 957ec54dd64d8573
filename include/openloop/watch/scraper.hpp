#pragma once
// One blocking HTTP(S) GET of a metrics endpoint, for a thread of the
// caller's choosing (a sampler thread, or the main thread before and after a
// run; never the io thread). Each get() runs its own io_context, bounded by a
// total timeout. Network and HTTP failures are values, never exceptions; an
// error names the URL (we send no credentials, so none can leak into it).

#include <chrono>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

namespace openloop {

struct scrape_url {
    bool tls = false;
    std::string host;
    std::string port;    // "80" / "443" when the URL has none
    std::string target;  // path and query, "/metrics" when the URL has no path
    std::string text;    // the URL as given, for messages
};

// http[s]://HOST[:PORT][/PATH]; HOST may be an [IPv6] literal. Throws
// input_error naming the URL and what is wrong with it (no scheme, an empty
// host, a bad port, credentials in the URL).
scrape_url parse_scrape_url(std::string_view url);

struct scrape_result {
    bool ok = false;
    std::string error;  // "scrape URL: what went wrong", when !ok
    std::string body;
    double seconds = 0;  // the GET's wall time
};

struct scraper_options {
    std::chrono::milliseconds timeout{2000};     // connect, TLS, request and body together
    std::size_t body_limit = 64u * 1024 * 1024;  // a larger body is an error
    std::string ca_file;  // https: trust this PEM file too (a self-signed exporter), beside the system's
};

class scraper {
public:
    // Throws input_error for a bad URL.
    explicit scraper(std::string_view url, scraper_options options = {});
    ~scraper();
    scraper(scraper&&) noexcept;
    scraper& operator=(scraper&&) noexcept;

    scrape_result get();
    const scrape_url& url() const { return url_; }

private:
    struct tls_state;
    scrape_url url_;
    scraper_options options_;
    std::unique_ptr<tls_state> tls_;  // the client context, made on first https get
};

}  // namespace openloop
