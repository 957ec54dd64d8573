#pragma once
// The server signals of one moment: every `--scrape URL` fetched and parsed,
// the well-known signals picked (server_signals), and a local server's RSS
// and CPU from /proc (`--server-pid`). sample() blocks (up to each URL's
// timeout, one after the other): call it from a sampler thread once per
// window, or from the main thread before and after a run; never from the io
// thread. Failures are counted and reported, never thrown.
//
// Names: with one URL the signals keep their names (`kv_usage`); with
// several, each is prefixed by its URL's 1-based position and a dot
// (`1.kv_usage`, `2.gpu_memory_used_mib`), as the same signal may come from
// more than one (an exporter's own process_resident_memory_bytes).

#include "openloop/watch/process_usage.hpp"
#include "openloop/watch/prometheus_text.hpp"
#include "openloop/watch/scraper.hpp"
#include "openloop/watch/server_signals.hpp"

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

struct signal_sampler_options {
    std::vector<std::string> urls;
    std::vector<std::string> extra_metrics;  // `--scrape-metric NAME`
    int server_pid = -1;                     // -1: none; 0: this process
    scraper_options scrape;
};

struct scrape_source {
    std::string url;
    bool ok = false;                 // this sample's scrape worked
    std::uint64_t scrapes = 0;       // cumulative
    std::uint64_t failures = 0;      // cumulative: network, HTTP status, empty parse
    std::size_t bad_lines = 0;       // this scrape's unreadable lines
    std::string last_error;          // the latest failure's text, kept after recoveries
    double seconds = 0;              // this scrape's duration
};

struct signal_sample {
    std::vector<signal_value> signals;  // rates and window means need a previous sample
    std::vector<signal_value> totals;   // counter_totals, named as signals are
    std::vector<scrape_source> sources;
    process_usage server;               // ok=false without --server-pid or when it is gone
    double server_cpu_percent = -1;     // over the time since the previous sample; -1: unknown
};

class signal_sampler {
public:
    // Throws input_error for a bad URL.
    explicit signal_sampler(signal_sampler_options options);

    signal_sample sample();

private:
    struct source {
        scraper client;
        scrape_source status;
        std::optional<prom_scrape> previous;
        std::chrono::steady_clock::time_point previous_at{};
    };
    std::vector<source> sources_;
    std::vector<std::string> extra_;
    int pid_;
    process_usage previous_usage_;
    std::chrono::steady_clock::time_point previous_usage_at_{};
};

}  // namespace openloop
