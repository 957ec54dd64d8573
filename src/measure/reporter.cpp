#include "openloop/measure/reporter.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/result_files.hpp"
#include "openloop/measure/live_requests.hpp"
#include "openloop/measure/metrics_export.hpp"
#include "openloop/measure/progress_line.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/measure/request_log.hpp"
#include "openloop/measure/session_log.hpp"
#include "openloop/measure/timeseries.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <thread>
#include <vector>

namespace openloop {

namespace {

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

}  // namespace

struct reporter::impl {
    impl(spsc_ring<event>& ring, reporter_options options)
        : ring_(ring), options_(std::move(options)), windows_(options_.window),
          soak_(options_.soak_window.count() > 0 ? options_.soak_window : std::chrono::seconds(10)) {
        soak_.set_signal_source(options_.signals);
        soak_.print_windows(soaking() && options_.window_lines);
        stats_.fidelity = replay_fidelity(options_.trace);
        stats_.sessions.stride = options_.session_stride;
    }

    spsc_ring<event>& ring_;
    reporter_options options_;
    std::int64_t last_intended_ns_ = 0;
    std::int64_t previous_intended_ns_ = 0;  // the last measured start's, in the order they came
    std::int64_t last_sent_ns_ = 0;          // the last measured send's
    std::vector<std::int64_t> completion_ends_;  // only with options_.steady_throughput
    run_stats stats_;
    live_requests live_;
    std::uint64_t measured_inflight_ = 0;
    std::int64_t next_inflight_sample_ns_ = 0;
    bool drain_over_ = false;  // a drain_over event came: later cancellations are cancelled_at_end

    std::thread thread_;
    std::atomic<bool> producer_done_{false};
    std::exception_ptr error_;
    bool finished_ = false;

    request_log requests_;
    session_log sessions_;  // sessions runs only
    timeseries windows_;
    window_log soak_;  // files only with options_.soak_window; windows also for the live endpoint
    bool soaking() const { return options_.soak_window.count() > 0; }
    bool windowed() const { return soaking() || options_.live != nullptr; }
    std::int64_t last_publish_ns_ = 0;
    std::int64_t last_flush_ns_ = 0;

    progress_line progress_{options_.progress_interval};

    void open_files() {
        if (options_.out_dir.empty()) {
            return;
        }
        std::error_code ec;
        std::filesystem::create_directories(options_.out_dir, ec);
        if (ec) {
            throw std::runtime_error("cannot create output directory " + options_.out_dir + ": " + ec.message());
        }
        const std::filesystem::path dir(options_.out_dir);
        requests_.open((dir / result_file::requests_jsonl).string(), options_.request_id_prefix, options_.chunk_gaps,
                       options_.session_stride);
        windows_.open((dir / result_file::timeseries_csv).string());
        if (options_.session_stride > 0) sessions_.file.open((dir / result_file::sessions_jsonl).string());
        if (soaking()) soak_.open(options_.out_dir);
    }

    // The reporter naps between drains rather than being woken per event: on
    // a virtual machine, waking a sleeping thread costs the waker up to
    // 0.1 ms, which the io thread cannot spend. The nap doubles while nothing
    // comes (0.1 s at most: ten wake-ups a second when idle, 40,000 events at
    // 20,000 req/s) and halves when much did, so the ring (a million events)
    // stays far from full.
    static constexpr std::chrono::microseconds min_nap{250}, max_nap{100'000};

    void loop() {
        std::chrono::microseconds nap = min_nap;
        for (;;) {
            // Read the flag before draining: once it is seen set, the drain
            // that follows finds every event the producer ever pushed.
            const bool last = producer_done_.load(std::memory_order_acquire);
            const std::size_t n = drain(4096);
            if (last) {
                drain(SIZE_MAX);
                break;
            }
            housekeeping(steady_now_ns());
            if (n == 4096) {
                nap = min_nap;
                continue;
            }
            if (n == 0) {
                nap = std::min(nap * 2, max_nap);
            } else if (n > 256) {
                nap = std::max(nap / 2, min_nap);
            }
            std::this_thread::sleep_for(nap);
        }
        finalize();
    }

    std::size_t drain(std::size_t limit) {
        std::size_t n = 0;
        event e;
        while (n < limit && ring_.try_pop(e)) {
            ++n;
            if (error_) {
                continue;  // already broken: keep the ring moving; finish() reports it
            }
            try {
                process(e);
            } catch (...) {
                error_ = std::current_exception();
            }
        }
        return n;
    }

    void housekeeping(std::int64_t now) {
        if (error_) {
            return;
        }
        try {
            if (options_.follow_clock) {
                windows_.advance(now, measured_inflight_);
                if (windowed()) soak_.advance(now, measured_inflight_);
            }
            if (options_.progress && progress_.due(now)) print_progress(now);
            if (now - last_flush_ns_ >= 1'000'000'000) {
                last_flush_ns_ = now;
                requests_.flush();
                sessions_.file.flush();
                windows_.flush();
            }
            if (options_.live && now - last_publish_ns_ >= 1'000'000'000) {
                last_publish_ns_ = now;
                publish();
            }
        } catch (...) {
            error_ = std::current_exception();
        }
    }

    void process(const event& e) {
        const std::int64_t origin = options_.run_start_ns != 0 ? options_.run_start_ns : e.t_ns;
        windows_.start(origin);
        windows_.advance(e.t_ns, measured_inflight_);
        if (windowed()) {
            soak_.start(origin);
            soak_.advance(e.t_ns, measured_inflight_);
        }
        if (options_.steady_throughput) sample_inflight(e.t_ns);
        switch (e.kind) {
        case event_kind::start: on_start(e); break;
        case event_kind::refused:
            if (!e.warmup()) {
                ++stats_.refused;
                stats_.fidelity.asked(e.t_ns);
                windows_.refused();
                soak_.refused();
            }
            break;
        case event_kind::connect:
            if (auto* r = live_.find(e.request)) {
                r->connect = e.connect_ns();
            }
            break;
        case event_kind::released:
            if (auto* r = live_.find(e.request); r != nullptr && r->released < 0) {
                r->released = e.t_ns;
                if (!r->warmup) {
                    ++stats_.queued;
                    stats_.queue.record(e.t_ns - r->intended);
                }
            }
            break;
        case event_kind::sent:
            if (auto* r = live_.find(e.request); r != nullptr && r->sent < 0) {
                r->sent = e.t_ns;
                // Lag measures the generator, not the server: every measured
                // request that went out counts, whatever became of it. One that
                // waited for a slot was due when the slot freed.
                if (!r->warmup) {
                    const std::int64_t due = r->released >= 0 ? r->released : r->intended;
                    stats_.lag.record(e.t_ns - due);
                    soak_.lag(e.t_ns - due);
                    r->reusable_at_send = stats_.fidelity.sent(e.request, e.t_ns);
                    if (last_sent_ns_ > 0) stats_.sent_gap.record(e.t_ns - last_sent_ns_);
                    last_sent_ns_ = e.t_ns;
                }
            }
            break;
        case event_kind::headers:
            if (auto* r = live_.find(e.request); r != nullptr && r->headers < 0) {
                r->headers = e.t_ns;
                r->http_status = e.http_status();
            }
            break;
        case event_kind::chunk:
            if (auto* r = live_.find(e.request)) {
                r->add_chunk(e.t_ns, e.chunk_tokens());
            }
            break;
        case event_kind::done: on_done(e); break;
        case event_kind::failed: on_failed(e); break;
        case event_kind::drain_over: drain_over_ = true; break;
        case event_kind::session_end:
            if ((e.flags & session_warmup) == 0) stats_.sessions.session_ended(e.t_ns, e.first_intended_ns(), e.turns_completed(), e.turns_planned(), e.flags);
            if (stats_.sessions.enabled())
                sessions_.write({e.request / static_cast<std::uint64_t>(stats_.sessions.stride),
                                 (e.flags & session_warmup) != 0, e.first_intended_ns(), e.t_ns, e.turns_planned(),
                                 e.turns_completed(), e.flags});
            break;
        case event_kind::retry:
            if (auto* r = live_.find(e.request); r != nullptr && !r->retried) {
                r->retried = true;
                if (!r->warmup) ++stats_.retried_stale;
            }
            break;
        }
    }

    // The count only changes at events, so sampling the grid points an event
    // passes, before applying it, records the step function exactly.
    void sample_inflight(std::int64_t t) {
        constexpr std::int64_t step = 100'000'000;
        if (stats_.inflight_step_ns == 0) {
            stats_.inflight_step_ns = step;
            stats_.inflight_origin_ns = t;
            next_inflight_sample_ns_ = t;
        }
        for (; next_inflight_sample_ns_ <= t; next_inflight_sample_ns_ += step) {
            stats_.inflight_samples.push_back(static_cast<std::uint32_t>(live_.size()));
        }
    }

    void on_start(const event& e) {
        request_timeline* started = live_.begin(e.request);
        if (!started) return;
        request_timeline& r = *started;
        r.intended = e.t_ns;
        r.input_tokens = e.input_tokens();
        r.max_tokens = options_.generates ? e.max_tokens() : 0;
        r.warmup = e.warmup();
        if (r.warmup) {
            ++stats_.warmup_started;
            return;
        }
        if (stats_.started == 0 || e.t_ns < stats_.first_intended_ns) {
            stats_.first_intended_ns = e.t_ns;
        }
        if (stats_.started > 0) stats_.asked_gap.record(e.t_ns - previous_intended_ns_);
        previous_intended_ns_ = e.t_ns;
        last_intended_ns_ = std::max(last_intended_ns_, e.t_ns);
        ++stats_.started;
        stats_.fidelity.asked(e.t_ns);
        windows_.offered();
        soak_.offered();
        ++measured_inflight_;
        stats_.max_inflight = std::max(stats_.max_inflight, measured_inflight_);
    }

    void on_done(const event& e) {
        request_timeline* live = live_.find(e.request);
        if (!live) return;
        if (options_.steady_throughput) completion_ends_.push_back(e.t_ns);
        request_timeline& r = *live;
        const stream_usage usage{e.completion_tokens(), e.prompt_tokens(), e.cached_tokens(), (e.flags & done_bad_usage) != 0};
        r.prompt_tokens = e.prompt_tokens();
        if ((e.flags & done_unstreamed) != 0) {
            r.streamed = false;
            r.answered = e.t_ns;
        }
        const request_metrics m = measure_request(r, usage);
        const bool good = meets(options_.slo, r, m);
        if (!r.warmup) {
            record_completed(stats_, r, m, usage, good);
            if (stats_.sessions.enabled()) stats_.sessions.completed_turn(e.request, m.ttft, m.e2e, e.prompt_tokens(), e.cached_tokens());
            stats_.fidelity.completed({e.request, r.input_tokens, usage.prompt_tokens, r.max_tokens,
                                       m.output_from_usage ? m.output_tokens : -1, usage.cached_tokens,
                                       r.reusable_at_send});
            end_measured(e.t_ns);
            windows_.completed(m.ttft, m.output_tokens);
            if (windowed()) soak_.completed(r, m);
        }
        stats_.fidelity.cached_by_server(e.request);  // warm-up ones too: the server cached them alike
        request_end end;
        end.status = "ok";
        end.end_ns = e.t_ns;
        end.output_tokens = m.output_tokens;
        end.output_from_usage = m.output_from_usage;
        end.output_counted = m.output_counted;
        end.bad_usage = m.bad_usage;
        end.cached_tokens = e.cached_tokens();
        end.tpot_ns = m.tpot;
        end.good = good;
        requests_.write(e.request, r, end);
        live_.end(e.request);
    }

    void on_failed(const event& e) {
        request_timeline* live = live_.find(e.request);
        if (!live) return;
        request_timeline& r = *live;
        int cls = (e.error() >= 0 && e.error() < error_class_count) ? static_cast<int>(e.error()) : static_cast<int>(error_class::io);
        // The wire knows only that it was cancelled; the ring's order says it was the drain limit.
        if (drain_over_ && cls == static_cast<int>(error_class::cancelled))
            cls = static_cast<int>(error_class::cancelled_at_end);
        if (e.http_status() != 0) {
            r.http_status = e.http_status();
        }
        if (!r.warmup) {
            ++stats_.failed;
            ++stats_.failed_by_class[static_cast<std::size_t>(cls)];
            if (stats_.sessions.enabled()) stats_.sessions.failed_turn(e.request);
            // A stream that broke after a 200 is a stream failure, not an HTTP one.
            if (e.http_status() >= 400) {
                count_status(e.http_status());
            }
            end_measured(e.t_ns);
            windows_.failed();
            soak_.failed(cls);
        }
        request_end end;
        end.status = "failed";
        end.error = error_class_name(static_cast<error_class>(cls));
        end.end_ns = e.t_ns;
        end.output_tokens = r.chunks;
        requests_.write(e.request, r, end);
        live_.end(e.request);
    }

    void count_status(int status) {
        auto& counts = stats_.http_status_counts;
        const auto it = std::lower_bound(counts.begin(), counts.end(), status,
                                         [](const auto& entry, int s) { return entry.first < s; });
        if (it != counts.end() && it->first == status) {
            ++it->second;
        } else {
            counts.insert(it, {status, 1});
        }
    }

    void end_measured(std::int64_t t) {
        --measured_inflight_;
        stats_.last_end_ns = std::max(stats_.last_end_ns, t);
    }

    // The live endpoint's text: formatted here, once a second, never on the io thread.
    void publish() {
        live_view v;
        v.stats = &stats_;
        v.in_flight = measured_inflight_;
        v.lost_events = options_.lost_events ? options_.lost_events() : 0;
        const window_figures& w = soak_.last();
        if (w.index >= 0) {
            v.window = live_window{w.seconds,  w.ttft_p50, w.ttft_p90,      w.ttft_p99,     w.itl_p99,
                                   w.tpot_p99, w.e2e_p99,  w.achieved_rate, w.offered_rate};
        }
        v.generator_rss_bytes = resident_memory_bytes();
        v.generator_cpu_seconds = cpu_seconds();
        options_.live->publish(format_live_metrics(v));
    }

    void print_progress(std::int64_t now) {
        const std::int64_t origin = windows_.origin_ns();
        progress_figures f;
        f.elapsed_s = origin != 0 && now > origin ? static_cast<double>(now - origin) / 1e9 : 0.0;
        f.sent = stats_.started + stats_.warmup_started;
        f.in_flight = live_.size();
        f.completed = stats_.completed;
        f.failed = stats_.failed;
        f.ttft_p50_ms = ms(stats_.ttft.percentile(50));
        f.ttft_p99_ms = ms(stats_.ttft.percentile(99));
        progress_.print(now, f);
    }

    void finalize() {
        if (!error_) {
            try {
                finalize_unchecked();
            } catch (...) {
                error_ = std::current_exception();
            }
        }
        requests_.close();
        sessions_.file.close();
        windows_.close();
        soak_.close();
    }

    void finalize_unchecked() {
        const std::int64_t now = steady_now_ns();
        if (options_.follow_clock) {
            windows_.advance(now, measured_inflight_);
        }
        windows_.close_window(measured_inflight_);  // the last, partial window, with what is still in flight
        if (windowed()) {
            soak_.advance(now, measured_inflight_);
            soak_.close_window(now, measured_inflight_);
        }
        if (options_.progress) {
            if (progress_.printed() || stats_.started + stats_.warmup_started > 0) {
                print_progress(now);
            }
            std::fputc('\n', stderr);
        }
        if (options_.steady_throughput && stats_.started > 1 && last_intended_ns_ > stats_.first_intended_ns) {
            stats_.steady_window_s = static_cast<double>(last_intended_ns_ - stats_.first_intended_ns) / 1e9;
            stats_.steady_completed = static_cast<std::uint64_t>(
                std::count_if(completion_ends_.begin(), completion_ends_.end(), [&](std::int64_t t) {
                    return t >= stats_.first_intended_ns && t <= last_intended_ns_;
                }));
        }
        // Whatever is still live was cut short; write them in schedule order.
        live_.take_all([&](std::uint64_t index, const request_timeline& r) {
            if (!r.warmup) ++stats_.unfinished;
            request_end end;
            end.status = "unfinished";
            end.output_tokens = r.chunks;
            requests_.write(index, r, end);
        });
        measured_inflight_ = 0;
        if (options_.live) publish();  // the run's final counts
        requests_.check();
        sessions_.file.check();
        windows_.check();
        soak_.check();
    }
};

reporter::reporter(spsc_ring<event>& ring, reporter_options options)
    : impl_(std::make_unique<impl>(ring, std::move(options))) {}

reporter::~reporter() {
    if (impl_->thread_.joinable()) {
        try {
            finish();
        } catch (...) {
            // A destructor must not throw; finish() is where errors are reported.
        }
    }
}

void reporter::start() {
    if (impl_->thread_.joinable() || impl_->finished_) {
        throw std::logic_error("reporter::start called twice");
    }
    impl_->open_files();
    impl_->thread_ = std::thread([this] { impl_->loop(); });
}

void reporter::finish() {
    if (impl_->finished_) {
        return;
    }
    impl_->finished_ = true;
    impl_->producer_done_.store(true, std::memory_order_release);
    if (impl_->thread_.joinable()) {
        impl_->thread_.join();
    } else {
        // Never started: do the same work on the caller's thread.
        impl_->open_files();
        impl_->loop();
    }
    if (impl_->error_) {
        std::rethrow_exception(impl_->error_);
    }
}

const run_stats& reporter::stats() const { return impl_->stats_; }

}  // namespace openloop
