#include "openloop/cli/signal_options.hpp"

#include "openloop/base/input_error.hpp"
#include "openloop/cli/usage.hpp"
#include "openloop/run/stop_signals.hpp"
#include "openloop/watch/scraper.hpp"

#include <boost/program_options.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <ctime>
#include <filesystem>

namespace openloop {

namespace po = boost::program_options;

po::options_description signal_options() {
    po::options_description signals("Server signals", help_width, help_width / 2);
    signals.add_options()
        ("scrape", po::value<std::vector<std::string>>()->composing(),
         "Prometheus endpoint to sample (repeatable): the server's /metrics (vLLM, SGLang, llama.cpp), a DCGM or "
         "node exporter; well-known serving metrics are kept (docs/metrics.md), failures are counted, never fatal. "
         "run and sweep: before and after, deltas in summary.json; soak: every window")
        ("scrape-metric", po::value<std::vector<std::string>>()->composing(),
         "also keep this metric from the scrapes (repeatable): a gauge as is, a counter as a rate, a histogram "
         "as its mean over the window")
        ("server-pid", po::value<int>(), "a local server process whose RSS and CPU to read from /proc")
        ("metrics-listen", po::value<std::string>(),
         "serve openloop's own Prometheus metrics at HOST:PORT/metrics while it runs (e.g. 127.0.0.1:9464; "
         "[::1]:9464; :9464 listens on every interface, with a warning): counters by outcome, in flight, lag and "
         "latency histograms, the last window's percentiles (tools/grafana has a dashboard); / is a live page "
         "for a browser")
        ("metrics-linger", po::value<std::string>()->default_value("0"),
         "with --metrics-listen: keep serving the final figures this long after the results are written, so a "
         "scraper's last scrape sees the run's end (e.g. 30s for a 15 s scrape interval); Ctrl-C ends it");
    return signals;
}

void start_live_metrics(run_options& o) {
    if (o.metrics_listen.empty() || o.live) return;
    try {
        o.live = std::make_shared<metrics_endpoint>(o.metrics_listen);
    } catch (const input_error& e) {
        throw usage_error(e.what());
    } catch (const std::runtime_error& e) {
        throw usage_error(std::string("--metrics-listen: ") + e.what());
    }
    o.live->start();
    const listen_address& a = o.live->address();
    const std::string host = a.host.empty() ? "0.0.0.0" : a.host.find(':') != std::string::npos ? "[" + a.host + "]" : a.host;
    std::fprintf(stderr, "openloop: metrics on http://%s:%u/metrics\n", host.c_str(), static_cast<unsigned>(o.live->port()));
}

void linger_live_metrics(const run_options& o) {
    if (!o.live || !(o.metrics_linger_s > 0)) return;
    std::fprintf(stderr, "openloop: the final metrics stay on port %u for %g s (--metrics-linger; Ctrl-C ends it)\n",
                 static_cast<unsigned>(o.live->port()), o.metrics_linger_s);
    // The stop signals are held (blocked) for the run's io thread to take; waited for here the same way.
    hold_stop_signals();
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    const auto whole = static_cast<std::time_t>(o.metrics_linger_s);
    timespec wait{whole, static_cast<long>((o.metrics_linger_s - static_cast<double>(whole)) * 1e9)};
    while (sigtimedwait(&stop, nullptr, &wait) < 0 && errno == EINTR) {
    }
}

watch_options fill_signals(const po::variables_map& vm) {
    watch_options w;
    if (vm.count("scrape")) {
        w.scrape_urls = vm["scrape"].as<std::vector<std::string>>();
        for (const std::string& url : w.scrape_urls) {
            try {
                parse_scrape_url(url);
            } catch (const input_error& e) {
                throw usage_error(std::string("--scrape: ") + e.what());
            }
        }
    }
    if (vm.count("scrape-metric")) w.scrape_metrics = vm["scrape-metric"].as<std::vector<std::string>>();
    if (vm.count("server-pid")) {
        w.server_pid = vm["server-pid"].as<int>();
        if (w.server_pid <= 0) throw usage_error("--server-pid must be a process id, got " + std::to_string(w.server_pid));
        if (!std::filesystem::exists("/proc/" + std::to_string(w.server_pid)))
            throw usage_error("--server-pid " + std::to_string(w.server_pid) + ": no such process");
    }
    return w;
}

}  // namespace openloop
