#include "openloop/measure/reporter.hpp"

#include "openloop/measure/clock.hpp"
#include "openloop/measure/resource_usage.hpp"

#include "openloop/results/report.hpp"

#include <boost/json/object.hpp>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <unistd.h>

namespace openloop {

int input_bucket(int input_tokens) {
    int bucket = 0;
    for (std::size_t i = 1; i < input_bucket_lower.size(); ++i) {
        if (input_tokens >= input_bucket_lower[i]) {
            bucket = static_cast<int>(i);
        }
    }
    return bucket;
}

double run_stats::duration_s() const {
    if (completed + failed == 0 || last_end_ns <= first_intended_ns) {
        return 0;
    }
    return static_cast<double>(last_end_ns - first_intended_ns) / 1e9;
}

namespace {

// Resident set size of this process, MiB; negative when /proc is unreadable.
double rss_mb() {
    const std::int64_t bytes = resident_memory_bytes();
    return bytes < 0 ? -1.0 : static_cast<double>(bytes) / (1024.0 * 1024.0);
}

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }

// One interval between successive content chunks and the tokens the later
// chunk carried (< 1: unknown).
struct chunk_gap {
    std::int64_t ns;
    std::int32_t tokens;
};

struct request_state {
    std::int64_t intended = 0;
    std::int64_t connect = -1;  // duration, ns
    std::int64_t sent = -1;
    std::int64_t headers = -1;
    std::int64_t first_chunk = -1;
    std::int64_t last_chunk = -1;
    std::int64_t max_itl = 0;  // worst per-token gap, for the ITL SLO
    std::int64_t chunks = 0;
    std::int32_t input_tokens = 0;
    std::int32_t max_tokens = 0;
    std::int32_t http_status = 0;
    std::int32_t prompt_tokens = -1;  // the server's usage.prompt_tokens
    bool warmup = false;
    bool retried = false;
    // Kept until the request ends: a failed request must add no samples.
    std::vector<chunk_gap> gaps;
};

// What the end of a request adds to requests.jsonl beyond its timeline.
struct request_end {
    std::string_view status;
    std::string_view error;  // empty: none
    std::int64_t end_ns = -1;
    std::int64_t output_tokens = 0;
    bool output_from_usage = false;
    std::int64_t cached_tokens = -1;
    std::int64_t tpot_ns = -1;
};

void put_ns(boost::json::object& o, std::string_view key, std::int64_t ns) {
    if (ns >= 0) {
        o[key] = ns;
    } else {
        o[key] = nullptr;
    }
}

void put_ms(boost::json::object& o, std::string_view key, std::int64_t from, std::int64_t to) {
    if (from >= 0 && to >= 0) {
        o[key] = ms(to - from);
    } else {
        o[key] = nullptr;
    }
}

}  // namespace

struct reporter::impl {
    impl(spsc_ring<event>& ring, reporter_options options)
        : ring_(ring), options_(std::move(options)),
          window_ns_(std::max<std::int64_t>(
              1, std::chrono::duration_cast<std::chrono::nanoseconds>(options_.window).count())) {}

    spsc_ring<event>& ring_;
    reporter_options options_;
    std::int64_t last_intended_ns_ = 0;
    std::vector<std::int64_t> completion_ends_;  // only with options_.steady_throughput
    run_stats stats_;
    std::unordered_map<std::uint64_t, request_state> live_;
    std::uint64_t measured_inflight_ = 0;

    std::thread thread_;
    std::atomic<bool> producer_done_{false};
    std::atomic<std::uint64_t> completed_atomic_{0};
    std::exception_ptr error_;
    bool finished_ = false;

    std::string requests_path_;
    std::string timeseries_path_;
    std::ofstream requests_;
    std::ofstream timeseries_;
    std::int64_t last_flush_ns_ = 0;

    // Timeseries: window w covers [origin + w·window, origin + (w+1)·window).
    std::int64_t window_ns_;
    std::int64_t origin_ns_ = 0;  // 0 until known
    std::int64_t window_index_ = 0;
    std::uint64_t w_offered_ = 0;
    std::uint64_t w_refused_ = 0;
    std::uint64_t w_completed_ = 0;
    std::uint64_t w_failed_ = 0;
    std::int64_t w_output_tokens_ = 0;
    histogram w_ttft_;

    std::int64_t next_progress_ns_ = 0;
    std::int64_t last_progress_ns_ = 0;
    std::uint64_t last_progress_completed_ = 0;
    bool progress_printed_ = false;

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
        requests_path_ = (dir / "requests.jsonl").string();
        timeseries_path_ = (dir / "timeseries.csv").string();
        requests_.open(requests_path_, std::ios::out | std::ios::trunc);
        if (!requests_) {
            throw std::runtime_error("cannot open " + requests_path_ + " for writing");
        }
        timeseries_.open(timeseries_path_, std::ios::out | std::ios::trunc);
        if (!timeseries_) {
            throw std::runtime_error("cannot open " + timeseries_path_ + " for writing");
        }
        timeseries_ << "t_s,offered,refused,completed,failed,in_flight,output_tokens,"
                       "ttft_p50_ms,ttft_p99_ms,generator_rss_mb\n";
    }

    void loop() {
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
            if (n < 4096) {
                std::this_thread::sleep_for(std::chrono::microseconds(200));
            }
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
                advance_windows(now);
            }
            if (options_.progress) {
                maybe_progress(now);
            }
            if (now - last_flush_ns_ >= 1'000'000'000) {
                last_flush_ns_ = now;
                if (requests_.is_open()) {
                    requests_.flush();
                    timeseries_.flush();
                }
            }
        } catch (...) {
            error_ = std::current_exception();
        }
    }

    void process(const event& e) {
        if (origin_ns_ == 0) {
            origin_ns_ = options_.run_start_ns != 0 ? options_.run_start_ns : e.t_ns;
        }
        advance_windows(e.t_ns);
        switch (e.kind) {
        case event_kind::start: on_start(e); break;
        case event_kind::refused:
            if ((e.v & flag_warmup) == 0) {
                ++stats_.refused;
                ++w_refused_;
            }
            break;
        case event_kind::connect:
            if (auto* r = find(e.request)) {
                r->connect = e.v;
            }
            break;
        case event_kind::sent:
            if (auto* r = find(e.request); r != nullptr && r->sent < 0) {
                r->sent = e.t_ns;
                // Lag measures the generator, not the server: every measured
                // request that went out counts, whatever became of it.
                if (!r->warmup) {
                    stats_.lag.record(e.t_ns - r->intended);
                }
            }
            break;
        case event_kind::headers:
            if (auto* r = find(e.request); r != nullptr && r->headers < 0) {
                r->headers = e.t_ns;
                r->http_status = e.a;
            }
            break;
        case event_kind::chunk:
            if (auto* r = find(e.request)) {
                on_chunk(*r, e);
            }
            break;
        case event_kind::done: on_done(e); break;
        case event_kind::failed: on_failed(e); break;
        case event_kind::retry:
            if (auto* r = find(e.request); r != nullptr && !r->retried) {
                r->retried = true;
                if (!r->warmup) ++stats_.retried_stale;
            }
            break;
        }
    }

    request_state* find(std::uint64_t index) {
        const auto it = live_.find(index);
        return it == live_.end() ? nullptr : &it->second;
    }

    void on_start(const event& e) {
        auto [it, inserted] = live_.try_emplace(e.request);
        if (!inserted) {
            return;  // a duplicate start would restart the clocks of a live request
        }
        request_state& r = it->second;
        r.intended = e.t_ns;
        r.input_tokens = e.a;
        r.max_tokens = e.b;
        r.warmup = (e.v & flag_warmup) != 0;
        if (r.warmup) {
            ++stats_.warmup_started;
            return;
        }
        if (stats_.started == 0 || e.t_ns < stats_.first_intended_ns) {
            stats_.first_intended_ns = e.t_ns;
        }
        last_intended_ns_ = std::max(last_intended_ns_, e.t_ns);
        ++stats_.started;
        ++w_offered_;
        ++measured_inflight_;
        stats_.max_inflight = std::max(stats_.max_inflight, measured_inflight_);
    }

    static void on_chunk(request_state& r, const event& e) {
        if (r.first_chunk < 0) {
            r.first_chunk = e.t_ns;
        } else {
            const std::int64_t gap = e.t_ns - r.last_chunk;
            r.gaps.push_back({gap, e.a});
            r.max_itl = std::max(r.max_itl, e.a >= 1 ? gap / e.a : gap);
        }
        r.last_chunk = e.t_ns;
        ++r.chunks;
    }

    void on_done(const event& e) {
        const auto it = live_.find(e.request);
        if (it == live_.end()) {
            return;
        }
        if (options_.steady_throughput) completion_ends_.push_back(e.t_ns);
        request_state& r = it->second;
        request_end end;
        end.status = "ok";
        end.end_ns = e.t_ns;
        end.output_from_usage = e.a >= 0;
        end.output_tokens = end.output_from_usage ? e.a : r.chunks;
        end.cached_tokens = e.v;
        r.prompt_tokens = e.b;
        const bool has_content = r.first_chunk >= 0;
        const std::int64_t ttft = has_content ? r.first_chunk - r.intended : -1;
        const std::int64_t e2e = has_content ? r.last_chunk - r.intended : -1;
        if (has_content && end.output_tokens > 1) {
            end.tpot_ns = (e2e - ttft) / (end.output_tokens - 1);
        }
        if (!r.warmup) {
            record_completed(r, e, end, ttft, e2e);
        }
        write_request(e.request, r, end);
        live_.erase(it);
    }

    void record_completed(const request_state& r, const event& e, const request_end& end, std::int64_t ttft,
                          std::int64_t e2e) {
        ++stats_.completed;
        completed_atomic_.store(stats_.completed, std::memory_order_relaxed);
        end_measured(e.t_ns);
        stats_.total_input_tokens += r.input_tokens;
        stats_.total_output_tokens += end.output_tokens;
        if (e.b >= 0) {
            stats_.server_prompt_tokens += e.b;
            ++stats_.prompt_checked;
            stats_.prompt_intended_tokens += r.input_tokens;
            if (e.b == r.input_tokens) ++stats_.prompt_exact;
        }
        stats_.output_requested_tokens += r.max_tokens;
        if (end.output_tokens == r.max_tokens) ++stats_.output_at_max;
        if (e.v >= 0) {
            stats_.cached_prompt_tokens += e.v;
        }
        ++(end.output_from_usage ? stats_.output_from_usage : stats_.output_estimated);

        latency_set& bucket = stats_.by_input[static_cast<std::size_t>(input_bucket(r.input_tokens))];
        ++bucket.completed;
        if (ttft >= 0) {
            stats_.ttft.record(ttft);
            stats_.e2e.record(e2e);
            bucket.ttft.record(ttft);
            bucket.e2e.record(e2e);
            w_ttft_.record(ttft);
            if (r.sent >= 0) {
                stats_.ttft_from_send.record(r.first_chunk - r.sent);
                stats_.e2e_from_send.record(r.last_chunk - r.sent);
            }
        }
        if (end.tpot_ns >= 0) {
            stats_.tpot.record(end.tpot_ns);
            bucket.tpot.record(end.tpot_ns);
        }
        for (const chunk_gap& g : r.gaps) {
            stats_.icl.record(g.ns);
            if (g.tokens >= 1) {
                const std::int64_t per_token = g.ns / g.tokens;
                for (std::int32_t i = 0; i < g.tokens; ++i) {
                    stats_.itl.record(per_token);
                }
                stats_.itl_token_samples += static_cast<std::uint64_t>(g.tokens);
            } else {
                stats_.itl.record(g.ns);
                ++stats_.itl_chunk_samples;
            }
        }
        if (r.headers >= 0) {
            stats_.ttfb.record(r.headers - r.intended);
        }
        if (r.connect >= 0) {
            stats_.connect.record(r.connect);
        }
        if (is_good(r, end, ttft, e2e)) {
            ++stats_.good;
        }
        ++w_completed_;
        w_output_tokens_ += end.output_tokens;
    }

    // A threshold that cannot be checked because the request streamed no
    // content (no TTFT, no E2E) fails it; TPOT and ITL need more than one
    // token, and a request with a single token has nothing to violate them.
    bool is_good(const request_state& r, const request_end& end, std::int64_t ttft, std::int64_t e2e) const {
        const goodput_slo& slo = options_.slo;
        const auto over = [](std::int64_t ns, double limit_ms) { return limit_ms >= 0 && ms(ns) > limit_ms; };
        if (slo.ttft_ms >= 0 && (ttft < 0 || over(ttft, slo.ttft_ms))) {
            return false;
        }
        if (slo.e2e_ms >= 0 && (e2e < 0 || over(e2e, slo.e2e_ms))) {
            return false;
        }
        if (end.tpot_ns >= 0 && over(end.tpot_ns, slo.tpot_ms)) {
            return false;
        }
        return !over(r.max_itl, slo.itl_ms);
    }

    void on_failed(const event& e) {
        const auto it = live_.find(e.request);
        if (it == live_.end()) {
            return;
        }
        request_state& r = it->second;
        const int cls = (e.a >= 0 && e.a < error_class_count) ? e.a : static_cast<int>(error_class::io);
        if (e.b != 0) {
            r.http_status = e.b;
        }
        if (!r.warmup) {
            ++stats_.failed;
            ++stats_.failed_by_class[static_cast<std::size_t>(cls)];
            // A stream that broke after a 200 is a stream failure, not an HTTP one.
            if (e.b >= 400) {
                count_status(e.b);
            }
            end_measured(e.t_ns);
            ++w_failed_;
        }
        request_end end;
        end.status = "failed";
        end.error = error_class_name(static_cast<error_class>(cls));
        end.end_ns = e.t_ns;
        end.output_tokens = r.chunks;
        write_request(e.request, r, end);
        live_.erase(it);
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

    void write_request(std::uint64_t index, const request_state& r, const request_end& end) {
        if (!requests_.is_open()) {
            return;
        }
        boost::json::object o;
        o["id"] = options_.request_id_prefix + std::to_string(index);
        o["index"] = index;
        o["warmup"] = r.warmup;
        o["status"] = end.status;
        if (end.error.empty()) {
            o["error"] = nullptr;
        } else {
            o["error"] = end.error;
        }
        if (r.http_status != 0) {
            o["http_status"] = r.http_status;
        } else {
            o["http_status"] = nullptr;
        }
        put_ns(o, "intended_ns", r.intended);
        put_ns(o, "sent_ns", r.sent);
        put_ns(o, "headers_ns", r.headers);
        put_ns(o, "first_token_ns", r.first_chunk);
        put_ns(o, "last_token_ns", r.last_chunk);
        put_ns(o, "end_ns", end.end_ns);
        o["input_tokens"] = r.input_tokens;
        if (r.prompt_tokens >= 0) {
            o["prompt_tokens"] = r.prompt_tokens;
        } else {
            o["prompt_tokens"] = nullptr;
        }
        o["max_tokens"] = r.max_tokens;
        o["output_tokens"] = end.output_tokens;
        o["output_tokens_source"] = end.output_from_usage ? "usage" : "chunks";
        o["chunks"] = r.chunks;
        put_ns(o, "cached_tokens", end.cached_tokens);
        put_ms(o, "lag_ms", r.intended, r.sent);
        put_ms(o, "ttft_ms", r.intended, r.first_chunk);
        if (end.tpot_ns >= 0) {
            o["tpot_ms"] = ms(end.tpot_ns);
        } else {
            o["tpot_ms"] = nullptr;
        }
        put_ms(o, "e2e_ms", r.intended, r.last_chunk);
        o["retried"] = r.retried;
        if (r.connect >= 0) {
            o["connect_ms"] = ms(r.connect);
        } else {
            o["connect_ms"] = nullptr;  // on a pooled connection: no connect on its path
        }
        requests_ << compact_json(o) << '\n';
    }

    void advance_windows(std::int64_t t) {
        if (origin_ns_ == 0) {
            return;
        }
        // Late events (t in a window already written) land in the current one.
        while (t >= origin_ns_ + (window_index_ + 1) * window_ns_) {
            emit_row();
            ++window_index_;
        }
    }

    void emit_row() {
        if (timeseries_.is_open()) {
            char line[256];
            const double rss = rss_mb();
            char p50[32] = "";
            char p99[32] = "";
            char mem[32] = "";
            if (w_ttft_.count() > 0) {
                std::snprintf(p50, sizeof p50, "%.3f", ms(w_ttft_.percentile(50)));
                std::snprintf(p99, sizeof p99, "%.3f", ms(w_ttft_.percentile(99)));
            }
            if (rss >= 0) {
                std::snprintf(mem, sizeof mem, "%.1f", rss);
            }
            std::snprintf(line, sizeof line,
                          "%.3f,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRId64 ",%s,%s,%s\n",
                          static_cast<double>(window_index_ * window_ns_) / 1e9, w_offered_, w_refused_,
                          w_completed_, w_failed_, measured_inflight_, w_output_tokens_, p50, p99, mem);
            timeseries_ << line;
        }
        w_offered_ = w_refused_ = w_completed_ = w_failed_ = 0;
        w_output_tokens_ = 0;
        w_ttft_.reset();
    }

    void maybe_progress(std::int64_t now) {
        const std::int64_t interval =
            std::max<std::int64_t>(1, std::chrono::duration_cast<std::chrono::nanoseconds>(options_.progress_interval).count());
        if (next_progress_ns_ == 0) {
            next_progress_ns_ = now + interval;
            last_progress_ns_ = now;
            return;
        }
        if (now < next_progress_ns_) {
            return;
        }
        print_progress(now);
        next_progress_ns_ = now + interval;
    }

    void print_progress(std::int64_t now) {
        const double since_last = static_cast<double>(now - last_progress_ns_) / 1e9;
        const double rate = since_last > 0
                                ? static_cast<double>(stats_.completed - last_progress_completed_) / since_last
                                : 0.0;
        last_progress_ns_ = now;
        last_progress_completed_ = stats_.completed;
        const double elapsed = origin_ns_ != 0 && now > origin_ns_ ? static_cast<double>(now - origin_ns_) / 1e9 : 0.0;
        // Trailing spaces blank out the rest of a longer previous line.
        std::fprintf(stderr,
                     "\r%8.1f s  sent %" PRIu64 "  in flight %zu  done %" PRIu64 "  errors %" PRIu64
                     "  %.1f req/s  TTFT p50 %.1f ms p99 %.1f ms    ",
                     elapsed, stats_.started + stats_.warmup_started, live_.size(), stats_.completed, stats_.failed,
                     rate, ms(stats_.ttft.percentile(50)), ms(stats_.ttft.percentile(99)));
        std::fflush(stderr);
        progress_printed_ = true;
    }

    void finalize() {
        if (!error_) {
            try {
                finalize_unchecked();
            } catch (...) {
                error_ = std::current_exception();
            }
        }
        if (requests_.is_open()) {
            requests_.close();
            timeseries_.close();
        }
    }

    void finalize_unchecked() {
        const std::int64_t now = steady_now_ns();
        if (options_.follow_clock) {
            advance_windows(now);
        }
        if (origin_ns_ != 0) {
            emit_row();  // the last, partial window, with what is still in flight
        }
        if (options_.progress) {
            if (progress_printed_ || stats_.started + stats_.warmup_started > 0) {
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
        std::vector<std::uint64_t> left;
        left.reserve(live_.size());
        for (const auto& [index, r] : live_) {
            left.push_back(index);
        }
        std::sort(left.begin(), left.end());
        for (const std::uint64_t index : left) {
            const request_state& r = live_.at(index);
            if (!r.warmup) {
                ++stats_.unfinished;
            }
            request_end end;
            end.status = "unfinished";
            end.output_tokens = r.chunks;
            write_request(index, r, end);
        }
        live_.clear();
        measured_inflight_ = 0;

        if (requests_.is_open()) {
            requests_.flush();
            timeseries_.flush();
            if (!requests_) {
                throw std::runtime_error("writing " + requests_path_ + " failed");
            }
            if (!timeseries_) {
                throw std::runtime_error("writing " + timeseries_path_ + " failed");
            }
        }
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

std::uint64_t reporter::completed_so_far() const { return impl_->completed_atomic_.load(std::memory_order_relaxed); }

}  // namespace openloop
