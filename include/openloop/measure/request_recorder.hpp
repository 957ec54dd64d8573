#pragma once
// The reporter's events applied, one at a time, in ring order: each request's
// timeline assembled (live_requests), its metrics taken when it ends
// (request_metrics) and counted in run_stats, and what happened handed on to
// the sinks (request_sink.hpp). No thread, file or clock of its own: time is
// what the events carry.

#include "openloop/measure/event.hpp"
#include "openloop/measure/live_requests.hpp"
#include "openloop/measure/request_metrics.hpp"
#include "openloop/measure/request_sink.hpp"
#include "openloop/measure/run_stats.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

struct recorder_options {
    goodput_slo slo;
    // Keep every completion's end time (8 bytes each), to count the
    // completions inside the measured send window (run_stats::steady_*).
    bool steady_throughput = false;
    bool generates = true;  // false (embeddings): a request's max_tokens is 0
    std::int64_t run_start_ns = 0;  // the sinks' origin (0: the first event's time)
    const std::vector<trace_entry>* trace = nullptr;  // a replay's entries, for its fidelity; null: none
    int session_stride = 0;  // a sessions run: request index = session * stride + turn; 0: none
    // A mixed run's model names in --model's order (run_stats::by_model); empty: one model.
    std::vector<std::string> model_names;
    // --image-size's bucket labels in order; media: the run sends images or audio (run_stats::media
    // from the start, so its 0-image row holds every text-only request).
    std::vector<std::string> bucket_labels;
    bool media = false;
};

class request_recorder {
public:
    explicit request_recorder(const recorder_options& options);

    // Sinks are called in the order added; they must outlive the recorder.
    void add_sink(request_sink& sink) { sinks_.push_back(&sink); }

    void process(const event& e);
    // The end of the run: the steady-state throughput counted, and every
    // request still live ended "unfinished", in schedule order.
    void finish();

    const run_stats& stats() const { return stats_; }
    run_stats take_stats() { return std::move(stats_); }
    std::uint64_t measured_in_flight() const { return measured_inflight_; }
    std::size_t in_flight_with_warmup() const { return live_.size(); }

private:
    void sample_inflight(std::int64_t t);
    void on_start(const event& e);
    void on_refused(const event& e);
    void on_sent(const event& e);
    void on_done(const event& e);
    void on_failed(const event& e);
    void on_session_end(const event& e);
    void on_media(const event& e);
    model_stats* model_of(const request_timeline& r);
    void count_status(int status);
    void end_measured(std::int64_t t);

    recorder_options options_;
    std::vector<request_sink*> sinks_;
    run_stats stats_;
    live_requests live_;
    std::int64_t last_intended_ns_ = 0;
    std::int64_t previous_intended_ns_ = 0;  // the last measured start's, in the order they came
    std::int64_t last_sent_ns_ = 0;          // the last measured send's
    std::vector<std::int64_t> completion_ends_;  // only with options_.steady_throughput
    std::uint64_t measured_inflight_ = 0;
    std::int64_t next_inflight_sample_ns_ = 0;
    bool drain_over_ = false;  // a drain_over event came: later cancellations are cancelled_at_end
};

}  // namespace openloop
