#pragma once
// What a run watches of the server besides its responses: the `--scrape`
// endpoints and a `--server-pid` process, through a signal_sampler. A run
// samples once before its schedule and once after its drain (on the calling
// thread, before and after the io thread runs) and puts the deltas into
// summary.json; a soak also samples on a thread of its own just before each
// window ends, and the reporter copies the latest sample into the window's
// row. Nothing here runs on the io thread, and no failure is fatal.

#include "openloop/watch/signal_sampler.hpp"
#include "openloop/watch/window_signals.hpp"

#include <boost/json/object.hpp>

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace openloop {

struct watch_options {
    std::vector<std::string> scrape_urls;     // --scrape
    std::vector<std::string> scrape_metrics;  // --scrape-metric
    int server_pid = -1;                      // --server-pid; -1: none
    bool enabled() const { return !scrape_urls.empty() || server_pid >= 0; }
};

// A sample as a window row shows it: byte signals in MiB (server_rss_mib).
window_signals to_window_signals(const signal_sample& s, bool scraping, bool server_pid);

class server_watch {
public:
    // Throws input_error for a bad --scrape URL.
    explicit server_watch(const watch_options& options);
    ~server_watch();
    server_watch(const server_watch&) = delete;
    server_watch& operator=(const server_watch&) = delete;

    bool enabled() const { return sampler_ != nullptr; }

    // Blocking; on the calling thread, never while the io thread runs it.
    void sample_before();
    void sample_after();

    // Samples on a thread of its own lead before each multiple of period
    // after origin, until stop().
    void start(std::chrono::nanoseconds period, std::chrono::steady_clock::time_point origin);
    void stop();
    // The latest sample; never blocks on a scrape.
    window_signals latest() const;

    // summary.json's "server_signals": each source's scrapes and failures,
    // the counters before and after and their differences, the prefix-cache
    // hit rate over the run, the server's RSS before and after. Empty when
    // nothing was watched.
    boost::json::object summary() const;

private:
    void loop(std::chrono::nanoseconds period, std::chrono::steady_clock::time_point origin);
    signal_sample take();

    watch_options options_;
    std::unique_ptr<signal_sampler> sampler_;
    std::mutex sampler_mutex_;  // one sample at a time: the thread's and sample_after
    mutable std::mutex latest_mutex_;
    window_signals latest_;
    std::optional<signal_sample> before_, after_;
    std::thread thread_;
    std::mutex stop_mutex_;
    std::condition_variable stop_cv_;
    bool stopping_ = false;
};

}  // namespace openloop
