#pragma once
// Runs combined into one: the shards of one run, or repeats of it. The
// merged statistics are rebuilt from the parts' request logs put end to end
// (each line tagged with its origin), so counts, token totals and every
// histogram the log carries are exact, as if one run had made every request.
// The window is the time at least one part was running (the union of the
// parts' windows, on the host's monotonic clock): shards that ran together
// add their rates, repeats add their durations. ITL is not merged (the logs
// keep no per-chunk times). Pure: text in, statistics and text out.

#include "openloop/results/rebuild.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

struct merge_part {
    std::string name;            // shown in the origin tag and the reasons
    std::string requests_jsonl;  // the part's request log
    double offered_rate = 0;     // req/s its schedule offered; 0 unknown
};

struct merged_runs {
    rebuilt_stats rebuilt;       // over every part's lines; its window is the union (above)
    std::string requests_jsonl;  // the parts' lines in order, each with "origin" first
    std::int64_t window_ns = 0;  // the union of the parts' windows
    // Parts whose windows overlap ran together and add their offered rates;
    // groups that did not are averaged, weighted by how long each ran.
    double offered_rate = 0;
    std::vector<rebuilt_stats> parts;
};

merged_runs merge_runs(const std::vector<merge_part>& parts);

}  // namespace openloop
