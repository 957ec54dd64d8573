#pragma once
// Whether a run sent what was asked for, request by request: intended input
// and output lengths against the server's usage (every run), and for a trace
// replay also the send times per minute and the prefix reuse the trace
// implies against the cached tokens the server reported. The reporter thread
// feeds it as requests start, go out and complete; memory is fixed except one
// counter pair per minute of the run and, for a replay, one entry per prefix
// block the trace names. Pure: no clocks, no threads.

#include "openloop/load/trace_reuse.hpp"
#include "openloop/measure/histogram.hpp"

#include <array>
#include <cstdint>
#include <vector>

namespace openloop {

// Signed integers for percentiles: magnitudes in two log-linear histograms
// (2 significant digits: exact below 128, within 1 % above).
class signed_histogram {
public:
    signed_histogram();
    void record(std::int64_t v) noexcept;
    std::uint64_t count() const noexcept { return neg_.count() + zero_ + pos_.count(); }
    std::uint64_t zero() const noexcept { return zero_; }
    // Nearest rank, as histogram::percentile; 0 when empty.
    std::int64_t percentile(double p) const;
    std::int64_t min() const noexcept;
    std::int64_t max() const noexcept;
    double mean() const noexcept;

private:
    histogram neg_, pos_;  // magnitudes
    std::uint64_t zero_ = 0;
};

// One request's length: what it asked for, what the server counted.
struct length_miss {
    std::uint64_t request = 0;
    std::int64_t intended = 0;
    std::int64_t server = 0;
};

// Intended lengths against the server's counts, for requests where it gave one.
struct length_fidelity_stats {
    static constexpr std::size_t worst_kept = 5;

    std::uint64_t checked = 0;
    std::uint64_t exact = 0;
    signed_histogram error_tokens;     // server - intended
    signed_histogram error_basis_pts;  // (server - intended) / intended, in 0.01 %
    // The largest |server - intended|, largest first (ties: the earlier request).
    std::array<length_miss, worst_kept> worst{};
    std::size_t worst_count = 0;

    void record(std::uint64_t request, std::int64_t intended, std::int64_t server);
};

// Requests per minute of the run, counted from the first measured request's intended send time.
struct minute_counts {
    std::vector<std::uint64_t> asked;      // by intended send time: what the schedule (the trace) asked
    std::vector<std::uint64_t> delivered;  // by actual send time: what went on the wire
    // The minute where |asked - delivered| is largest (the first such); -1 with no minutes.
    std::int64_t worst_minute() const;
};

struct prefix_reuse_stats {
    std::uint64_t completed = 0;         // completed requests counted below
    std::int64_t implied_tokens = 0;     // what the trace implies: blocks seen in any earlier request of the replay
    std::int64_t at_send_tokens = 0;     // blocks of requests that had completed when this one was sent
    std::uint64_t reusing_at_send = 0;   // requests with at_send tokens: each may lose up to a server block
    std::int64_t cached_tokens = 0;      // usage.prompt_tokens_details.cached_tokens (absent: 0)
    std::uint64_t cached_reported = 0;   // completed requests whose usage carried cached_tokens
};

// What a completed request tells: its index and intended lengths, the
// server's counts (-1: not given).
struct completed_lengths {
    std::uint64_t request = 0;
    std::int64_t intended_input = 0;
    std::int64_t server_input = -1;
    std::int64_t intended_output = 0;  // max_tokens
    std::int64_t server_output = -1;   // usage.completion_tokens, believed
    std::int64_t cached = -1;
    std::int64_t reusable_at_send = -1;  // from sent(); -1: not a replay
};

class replay_fidelity {
public:
    replay_fidelity() = default;
    // A trace replay of entries (request i is entries[i % n]); they must
    // outlive the feeding (a copy kept after it only reads the counts).
    // Null or empty: lengths only.
    explicit replay_fidelity(const std::vector<trace_entry>* entries);

    bool replay() const { return replay_; }

    // A measured request was scheduled for intended_ns (sent or refused).
    void asked(std::int64_t intended_ns);
    // A measured request went out at sent_ns; returns the prompt tokens that
    // requests completed so far could serve from a prefix cache (-1: not a replay).
    std::int64_t sent(std::uint64_t request, std::int64_t sent_ns);
    // Any request completed, warm-up included: its blocks are in the server's cache now.
    void cached_by_server(std::uint64_t request);
    // A measured request completed.
    void completed(const completed_lengths& c);

    const length_fidelity_stats& input() const { return input_; }
    const length_fidelity_stats& output() const { return output_; }
    const minute_counts& minutes() const { return minutes_; }
    const prefix_reuse_stats& prefix() const { return prefix_; }

private:
    std::size_t minute_of(std::int64_t t_ns);

    const std::vector<trace_entry>* entries_ = nullptr;
    bool replay_ = false;
    std::vector<int> implied_;
    prefix_blocks completed_blocks_;
    std::int64_t origin_ns_ = 0;
    bool have_origin_ = false;
    length_fidelity_stats input_, output_;
    minute_counts minutes_;
    prefix_reuse_stats prefix_;
};

}  // namespace openloop
