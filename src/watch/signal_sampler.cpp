#include "openloop/watch/signal_sampler.hpp"

namespace openloop {

signal_sampler::signal_sampler(signal_sampler_options options)
    : extra_(std::move(options.extra_metrics)), pid_(options.server_pid) {
    for (const auto& url : options.urls) {
        source s{scraper(url, options.scrape), {}, std::nullopt, {}};
        s.status.url = url;
        sources_.push_back(std::move(s));
    }
}

signal_sample signal_sampler::sample() {
    signal_sample out;
    const bool prefixed = sources_.size() > 1;
    for (std::size_t i = 0; i < sources_.size(); ++i) {
        auto& src = sources_[i];
        auto r = src.client.get();
        const auto at = std::chrono::steady_clock::now();
        ++src.status.scrapes;
        src.status.seconds = r.seconds;
        src.status.ok = false;
        src.status.bad_lines = 0;
        if (!r.ok) {
            ++src.status.failures;
            src.status.last_error = std::move(r.error);
        } else {
            auto parsed = parse_prometheus_text(r.body);
            src.status.bad_lines = parsed.bad_lines;
            if (parsed.samples.empty()) {
                // A 200 with nothing readable (a login page, a proxy's error)
                // is a failure too, and must not become the rates' base.
                ++src.status.failures;
                src.status.last_error = "scrape " + src.status.url + ": no samples in the response (" +
                                        std::to_string(parsed.bad_lines) + " unreadable lines)";
            } else {
                src.status.ok = true;
                const double dt = std::chrono::duration<double>(at - src.previous_at).count();
                const prom_scrape* before = src.previous ? &*src.previous : nullptr;
                auto signals = select_signals(parsed, before, dt, extra_);
                auto totals = counter_totals(parsed);
                const std::string prefix = prefixed ? std::to_string(i + 1) + "." : "";
                for (auto* list : {&signals, &totals}) {
                    for (auto& s : *list) {
                        s.name.insert(0, prefix);
                        (list == &signals ? out.signals : out.totals).push_back(std::move(s));
                    }
                }
                src.previous = std::move(parsed);
                src.previous_at = at;
            }
        }
        out.sources.push_back(src.status);
    }
    if (pid_ >= 0) {
        const auto at = std::chrono::steady_clock::now();
        out.server = read_process_usage(pid_);
        if (out.server.ok && previous_usage_.ok) {
            const double wall = std::chrono::duration<double>(at - previous_usage_at_).count();
            if (wall > 0) out.server_cpu_percent = 100.0 * (out.server.cpu_seconds - previous_usage_.cpu_seconds) / wall;
        }
        previous_usage_ = out.server;
        previous_usage_at_ = at;
    }
    return out;
}

}  // namespace openloop
