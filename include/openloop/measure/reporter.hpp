#pragma once
// The reporter thread: drains the event ring into request_recorder (each
// request's timeline, its metrics, run_stats), whose sinks stream
// requests.jsonl, timeseries.csv and a soak's windows to disk; flushes them,
// prints the live progress line and publishes the live metrics text. It may
// be slow without slowing the sender.

#include "openloop/measure/event.hpp"
#include "openloop/watch/metrics_endpoint.hpp"
#include "openloop/measure/request_metrics.hpp"
#include "openloop/measure/ring.hpp"
#include "openloop/measure/run_stats.hpp"
#include "openloop/measure/window_log.hpp"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace openloop {

struct reporter_options {
    std::string out_dir;  // empty: no files
    bool progress = false;
    std::chrono::milliseconds progress_interval{1000};
    std::chrono::milliseconds window{1000};  // timeseries.csv interval
    std::string request_id_prefix = "openloop-";
    bool chunk_gaps = false;  // requests.jsonl lists each request's gaps between content chunks
    goodput_slo slo;
    // Keep every completion's end time (8 bytes each), to count the
    // completions inside the measured send window: the steady-state
    // throughput a sweep compares with the offered rate. Off for soaks.
    bool steady_throughput = false;
    // false (embeddings): requests generate nothing, so their max_tokens is 0
    // and no output length is judged against what the workload drew.
    bool generates = true;
    std::int64_t run_start_ns = 0;  // steady clock; timeseries and progress count from here (0: first event)
    // Also close timeseries windows as the steady clock passes them, so rows
    // keep coming while the server is silent. Off to replay synthetic times.
    bool follow_clock = true;
    // A soak: windows.csv and windows.jsonl, one row per window of this
    // length (0: none), with the server signals `signals` returns at each
    // window's end (it must not block).
    std::chrono::nanoseconds soak_window{0};
    std::function<window_signals()> signals;
    bool window_lines = false;  // a soak's progress: a line on stderr per window
    // --metrics-listen: the text published once a second (and at the end);
    // without a soak, its window gauges cover 10 s windows.
    metrics_endpoint* live = nullptr;
    std::string live_label;  // the live page's words for what runs: a sweep's stage
    std::function<std::uint64_t()> lost_events;  // the producer's count of events the full ring dropped
    // A trace replay's entries in schedule order (request i is entry i % n), for
    // its fidelity report; they outlive the reporter. Null: not a replay.
    const std::vector<trace_entry>* trace = nullptr;
    // A sessions run: request index = session * session_stride + turn (load/session.hpp); 0: none.
    int session_stride = 0;
    // A mixed run's model names in --model's order (per-model statistics and each line's
    // "model"); empty: one model. --image-size's bucket labels; media: the run sends media.
    std::vector<std::string> model_names;
    std::vector<std::string> bucket_labels;
    bool media = false;
};

class reporter {
public:
    reporter(spsc_ring<event>& ring, reporter_options options);
    ~reporter();
    reporter(const reporter&) = delete;
    reporter& operator=(const reporter&) = delete;

    void start();   // launches the thread
    void finish();  // after the producer stopped: drains what is left, flushes files, joins
    const run_stats& stats() const;  // complete after finish()
    // After finish(): the statistics moved out (a run's some 30 histograms, several MiB, are
    // not copied while the ring still holds its memory); stats() is empty after.
    run_stats take_stats();

private:
    struct impl;
    std::unique_ptr<impl> impl_;
};

}  // namespace openloop
