#include "openloop/watch/server_watch.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/quantity.hpp"

#include <algorithm>
#include <cmath>

namespace openloop {

namespace json = boost::json;

namespace {


const signal_value* find(const std::vector<signal_value>& values, const std::string& name) {
    const auto it = std::find_if(values.begin(), values.end(), [&](const signal_value& v) { return v.name == name; });
    return it == values.end() ? nullptr : &*it;
}

std::string mib_name(const std::string& name) {
    const std::string suffix = "_bytes";
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
        return name.substr(0, name.size() - suffix.size()) + "_mib";
    return name;
}

json::object totals_json(const std::vector<signal_value>& totals) {
    json::object o;
    for (const signal_value& v : totals) o[v.name] = v.value;
    return o;
}

}  // namespace

window_signals to_window_signals(const signal_sample& s, bool scraping, bool server_pid) {
    window_signals w;
    w.scraping = scraping;
    w.server_pid = server_pid;
    for (const signal_value& v : s.signals) {
        if (!std::isfinite(v.value)) continue;
        if (v.unit == "bytes") {
            w.values.emplace_back(mib_name(v.name), v.value / bytes_per_mib);
        } else {
            w.values.emplace_back(v.name, v.value);
        }
    }
    for (const scrape_source& src : s.sources) w.scrape_failures += src.failures;
    if (s.server.ok && s.server.rss_bytes >= 0) w.server_rss_mib = static_cast<double>(s.server.rss_bytes) / bytes_per_mib;
    w.server_cpu_pct = s.server_cpu_percent;
    return w;
}

server_watch::server_watch(const watch_options& options) : options_(options) {
    if (!options_.enabled()) return;
    signal_sampler_options so;
    so.urls = options_.scrape_urls;
    so.extra_metrics = options_.scrape_metrics;
    so.server_pid = options_.server_pid;
    sampler_ = std::make_unique<signal_sampler>(std::move(so));
}

server_watch::~server_watch() { stop(); }

signal_sample server_watch::take() {
    std::lock_guard lock(sampler_mutex_);
    signal_sample s = sampler_->sample();
    {
        std::lock_guard l(latest_mutex_);
        latest_ = to_window_signals(s, !options_.scrape_urls.empty(), options_.server_pid >= 0);
    }
    return s;
}

void server_watch::sample_before() {
    if (enabled()) before_ = take();
}

void server_watch::sample_after() {
    if (enabled()) after_ = take();
}

void server_watch::start(std::chrono::nanoseconds period, steady::time_point origin) {
    if (!enabled() || thread_.joinable()) return;
    stopping_ = false;
    thread_ = std::thread([this, period, origin] { loop(period, origin); });
}

void server_watch::loop(std::chrono::nanoseconds period, steady::time_point origin) {
    // Just before the window closes, so the row carries a fresh sample and
    // rates span about one window.
    const auto lead = std::min<std::chrono::nanoseconds>(std::chrono::seconds(1), period / 4);
    for (std::int64_t k = 1;; ++k) {
        const auto at = origin + k * period - lead;
        {
            std::unique_lock lock(stop_mutex_);
            if (stop_cv_.wait_until(lock, at, [this] { return stopping_; })) return;
        }
        if (steady::now() > at + period) continue;  // a slow scrape: skip the samples it overran
        take();
    }
}

void server_watch::stop() {
    {
        std::lock_guard lock(stop_mutex_);
        stopping_ = true;
    }
    stop_cv_.notify_all();
    if (thread_.joinable()) thread_.join();
}

window_signals server_watch::latest() const {
    std::lock_guard lock(latest_mutex_);
    return latest_;
}

json::object server_watch::summary() const {
    json::object o;
    if (!before_ && !after_) return o;
    const signal_sample& end = after_ ? *after_ : *before_;
    json::array sources;
    for (const scrape_source& s : end.sources) {
        json::object src{{"url", s.url}, {"scrapes", s.scrapes}, {"failures", s.failures}};
        if (!s.last_error.empty()) src["last_error"] = s.last_error;
        sources.push_back(std::move(src));
    }
    if (!sources.empty()) o["scrapes"] = std::move(sources);
    if (before_) o["before"] = totals_json(before_->totals);
    if (after_) o["after"] = totals_json(after_->totals);
    if (before_ && after_) {
        json::object delta;
        for (const signal_value& a : after_->totals) {
            if (const signal_value* b = find(before_->totals, a.name)) delta[a.name] = a.value - b->value;
        }
        // The run's own prefix-cache hit rate, whatever the server served before it.
        if (const auto* h = delta.if_contains("prefix_cache_hits"), *q = delta.if_contains("prefix_cache_queries");
            h && q && q->to_number<double>() > 0)
            o["prefix_cache_hit_rate"] = h->to_number<double>() / q->to_number<double>();
        o["delta"] = std::move(delta);
    }
    if (options_.server_pid >= 0) {
        json::object rss;
        if (before_ && before_->server.ok) rss["before"] = static_cast<double>(before_->server.rss_bytes) / bytes_per_mib;
        if (after_ && after_->server.ok) rss["after"] = static_cast<double>(after_->server.rss_bytes) / bytes_per_mib;
        o["server_rss_mib"] = std::move(rss);
    }
    return o;
}

}  // namespace openloop
