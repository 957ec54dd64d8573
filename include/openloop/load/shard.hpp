#pragma once
// One shard of a run spread over N processes (--shard I/N). There is one
// global schedule, and every process walks all of it: warm-up and the run's
// bounds are judged on the global index and time of each arrival, so that
// the shards together send exactly what one process would send, and each
// keeps the arrivals whose global index is I mod N. Request ids and
// per-request content derive from that global index, so the shards' request
// logs, put together, read like one run's. Walking an arrival a shard skips
// costs a draw of its gap, nothing more. Pure: no sockets, no clocks.

#include <cstdint>
#include <optional>
#include <string_view>

namespace openloop {

// Process index of count (0 <= index < count).
struct shard_spec {
    int index = 0;
    int count = 1;

    bool sharded() const { return count > 1; }
    bool owns(std::uint64_t global_index) const {
        return global_index % static_cast<std::uint64_t>(count) == static_cast<std::uint64_t>(index);
    }
    friend bool operator==(const shard_spec&, const shard_spec&) = default;
};

// "I/N", e.g. "0/4"; throws std::invalid_argument.
shard_spec parse_shard(std::string_view text);
// Throws std::invalid_argument, naming who, unless 0 <= index < count.
void check_shard(const shard_spec& shard, std::string_view who);

// A run's bounds, on the global schedule.
struct schedule_bounds {
    std::uint64_t warmup_requests = 0;
    double warmup_s = 0;
    std::uint64_t num_requests = 0;  // measured requests; 0: no count bound
    double duration_s = 0;           // measured window after warm-up; 0: no time bound
    bool all_bounds = false;         // past the window only when every bound is met

    bool is_warmup(std::int64_t offset_ns, std::uint64_t index) const;
    // The measured-th measured arrival, at offset_ns, is past the window.
    bool past(std::int64_t offset_ns, std::uint64_t measured) const;
};

struct shard_arrival {
    std::uint64_t index = 0;    // global: the x-request-id and the request's content
    std::int64_t offset_ns = 0; // intended send time from the run's start
    bool warmup = false;
};

class shard_walk {
public:
    // judge_bounds false: the caller ends the window (a sweep stage's rule).
    shard_walk(shard_spec shard, schedule_bounds bounds, bool judge_bounds = true);

    // This shard's next arrival; nullopt once the schedule or the window is
    // over. offset_of(g) gives global arrival g's intended time (nullopt: the
    // schedule ended) and is called once per global arrival, in order.
    template <class OffsetOf>
    std::optional<shard_arrival> next(OffsetOf&& offset_of) {
        while (!done_) {
            const std::uint64_t g = index_;
            const std::optional<std::int64_t> offset = offset_of(g);
            const bool warm = offset && bounds_.is_warmup(*offset, g);
            if (!offset || (!warm && judge_ && bounds_.past(*offset, measured_))) {
                done_ = true;
                break;
            }
            ++index_;
            if (!warm) ++measured_;
            if (shard_.owns(g)) return shard_arrival{g, *offset, warm};
        }
        return std::nullopt;
    }

    // Global arrivals walked so far (every shard's), and of them past warm-up.
    std::uint64_t walked() const { return index_; }
    std::uint64_t measured() const { return measured_; }

private:
    shard_spec shard_;
    schedule_bounds bounds_;
    bool judge_;
    bool done_ = false;
    std::uint64_t index_ = 0;
    std::uint64_t measured_ = 0;
};

}  // namespace openloop
