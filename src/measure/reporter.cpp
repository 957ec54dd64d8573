#include "openloop/measure/reporter.hpp"

#include "openloop/base/clock.hpp"
#include "openloop/base/result_files.hpp"
#include "openloop/measure/live_json.hpp"
#include "openloop/measure/metrics_export.hpp"
#include "openloop/measure/progress_line.hpp"
#include "openloop/measure/request_log.hpp"
#include "openloop/measure/request_recorder.hpp"
#include "openloop/measure/resource_usage.hpp"
#include "openloop/measure/session_log.hpp"
#include "openloop/measure/timeseries.hpp"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <stdexcept>
#include <thread>

namespace openloop {

namespace {


recorder_options recorder_options_of(const reporter_options& o) {
    recorder_options r;
    r.slo = o.slo;
    r.steady_throughput = o.steady_throughput;
    r.generates = o.generates;
    r.run_start_ns = o.run_start_ns;
    r.trace = o.trace;
    r.session_stride = o.session_stride;
    r.model_names = o.model_names;
    r.bucket_labels = o.bucket_labels;
    r.media = o.media;
    return r;
}

}  // namespace

struct reporter::impl {
    impl(spsc_ring<event>& ring, reporter_options options)
        : ring_(ring), options_(std::move(options)), timeseries_(options_.window),
          soak_windows_(options_.soak_window.count() > 0 ? options_.soak_window : std::chrono::seconds(10)),
          recorder_(recorder_options_of(options_)) {
        soak_windows_.set_signal_source(options_.signals);
        soak_windows_.print_windows(soaking() && options_.window_lines);
        recorder_.add_sink(timeseries_);
        if (keeps_soak_windows()) recorder_.add_sink(soak_windows_);
        recorder_.add_sink(requests_);
        if (options_.session_stride > 0) recorder_.add_sink(sessions_);
    }

    spsc_ring<event>& ring_;
    reporter_options options_;

    std::thread thread_;
    std::atomic<bool> producer_done_{false};
    std::exception_ptr error_;
    bool finished_ = false;

    // What the recorder hands each request on to: the files, and the soak
    // windows behind the live endpoint as well.
    request_log requests_;
    session_log sessions_;  // sessions runs only
    timeseries timeseries_;
    window_log soak_windows_;  // files only with options_.soak_window; windows also for the live endpoint
    bool soaking() const { return options_.soak_window.count() > 0; }
    bool keeps_soak_windows() const { return soaking() || options_.live != nullptr; }
    request_recorder recorder_;  // declared after its sinks, so it never outlives them
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
        requests_.set_names(options_.model_names, options_.bucket_labels);
        timeseries_.open((dir / result_file::timeseries_csv).string());
        if (options_.session_stride > 0) sessions_.file.open((dir / result_file::sessions_jsonl).string());
        if (soaking()) soak_windows_.open(options_.out_dir);
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
                recorder_.process(e);
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
                timeseries_.advance(now, recorder_.measured_in_flight());
                if (keeps_soak_windows()) soak_windows_.advance(now, recorder_.measured_in_flight());
            }
            if (options_.progress && progress_.due(now)) print_progress(now);
            if (now - last_flush_ns_ >= 1'000'000'000) {
                last_flush_ns_ = now;
                requests_.flush();
                sessions_.file.flush();
                timeseries_.flush();
            }
            if (options_.live && now - last_publish_ns_ >= 1'000'000'000) {
                last_publish_ns_ = now;
                publish();
            }
        } catch (...) {
            error_ = std::current_exception();
        }
    }

    // The live endpoint's text: formatted here, once a second, never on the io thread.
    void publish() {
        live_view v;
        v.stats = &recorder_.stats();
        v.in_flight = recorder_.measured_in_flight();
        v.lost_events = options_.lost_events ? options_.lost_events() : 0;
        const window_figures& w = soak_windows_.last();
        if (w.index >= 0) {
            v.window = live_window{w.seconds,  w.ttft_p50, w.ttft_p90,      w.ttft_p99,     w.itl_p99,
                                   w.tpot_p99, w.e2e_p99,  w.achieved_rate, w.offered_rate};
        }
        v.generator_rss_bytes = resident_memory_bytes();
        v.generator_cpu_seconds = cpu_seconds();
        const std::int64_t origin = timeseries_.origin_ns();
        const std::int64_t now = steady_now_ns();
        const double elapsed_s = origin != 0 && now > origin ? static_cast<double>(now - origin) / 1e9 : 0.0;
        options_.live->publish(format_live_metrics(v),
                               format_live_json(v, options_.live_label, elapsed_s, timeseries_.recent()));
    }

    void print_progress(std::int64_t now) {
        const std::int64_t origin = timeseries_.origin_ns();
        const run_stats& stats = recorder_.stats();
        progress_figures f;
        f.elapsed_s = origin != 0 && now > origin ? static_cast<double>(now - origin) / 1e9 : 0.0;
        f.sent = stats.started + stats.warmup_started;
        f.in_flight = recorder_.in_flight_with_warmup();
        f.completed = stats.completed;
        f.failed = stats.failed;
        f.ttft_p50_ms = ns_to_ms(stats.ttft.percentile(50));
        f.ttft_p99_ms = ns_to_ms(stats.ttft.percentile(99));
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
        timeseries_.close();
        soak_windows_.close();
    }

    void finalize_unchecked() {
        const std::int64_t now = steady_now_ns();
        if (options_.follow_clock) {
            timeseries_.advance(now, recorder_.measured_in_flight());
        }
        timeseries_.close_window(recorder_.measured_in_flight());  // the last, partial window, with what is still in flight
        if (keeps_soak_windows()) {
            soak_windows_.advance(now, recorder_.measured_in_flight());
            soak_windows_.close_window(now, recorder_.measured_in_flight());
        }
        if (options_.progress) {
            const run_stats& stats = recorder_.stats();
            if (progress_.printed() || stats.started + stats.warmup_started > 0) {
                print_progress(now);
            }
            std::fputc('\n', stderr);
        }
        // Whatever is still live was cut short: logged in schedule order.
        recorder_.finish();
        if (options_.live) publish();  // the run's final counts
        requests_.check();
        sessions_.file.check();
        timeseries_.check();
        soak_windows_.check();
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

const run_stats& reporter::stats() const { return impl_->recorder_.stats(); }

run_stats reporter::take_stats() { return impl_->recorder_.take_stats(); }

}  // namespace openloop
