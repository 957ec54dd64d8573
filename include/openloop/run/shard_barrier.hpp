#pragma once
// Where the shards of a sweep (load/shard.hpp) meet after each stage: files
// in the result directory they share (a volume every pod mounts). Each shard
// writes a mark when its part of a stage has ended, then waits for every
// other shard's; all of them then read the same parts, merge them the same
// way and so take the same decision (the next rate, or stop) and the same
// instant to start the next stage at. A shard that is interrupted leaves a
// stop file, so the others stop at the barrier instead of waiting out its
// timeout.

#include "openloop/load/shard.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

struct stage_mark {
    int shard = 0;
    std::int64_t end_wall_ns = 0;  // when its part of the stage ended, on its wall clock
    bool interrupted = false;
    bool overloaded = false;
    std::string stopped_early;     // why it failed fast; empty when it did not
};

// Sleeps up to seconds with SIGINT and SIGTERM held; true when one arrived
// (the sleep ends then).
bool sleep_unless_signalled(double seconds);

class shard_barrier {
public:
    // timeout_s: how long a shard waits for the others after its own mark.
    shard_barrier(std::filesystem::path dir, shard_spec shard, double timeout_s);

    // Writes this shard's mark of stage (a directory name under dir) and waits
    // for every shard's; returns them in shard order. nullopt when a signal
    // came or another shard stopped the sweep meanwhile (stop_reason() says
    // which). Throws std::runtime_error naming the shards still missing
    // after the timeout.
    std::optional<std::vector<stage_mark>> meet(const std::string& stage, stage_mark mine);
    // Tells the other shards to stop at their next barrier.
    void stop(const std::string& why);
    const std::string& stop_reason() const { return stop_reason_; }

    // The directory of this shard's part of stage: dir/stage/shard-I-of-N.
    std::filesystem::path part_dir(const std::string& stage) const;
    std::filesystem::path part_dir(const std::string& stage, int shard) const;

private:
    std::filesystem::path mark_file(const std::string& stage, int shard) const;

    std::filesystem::path dir_;
    shard_spec shard_;
    double timeout_s_;
    std::string stop_reason_;
};

}  // namespace openloop
