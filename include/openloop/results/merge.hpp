#pragma once
// Runs combined into one: the shards of one run, or repeats of it. The
// merged statistics are rebuilt from the parts' request logs put end to end
// (each line tagged with its origin), so counts, token totals and every
// histogram the log carries are exact, as if one run had made every request.
// The window is the time at least one part was running (the union of the
// parts' windows): shards that ran together add their rates, repeats add
// their durations. Each part's times are on its host's monotonic clock; a
// part's clock shift (its wall clock's offset, from summary.json's "start")
// moves them onto the wall clock, where shards on other hosts meet. ITL is not merged (the logs
// keep no per-chunk times). Pure: text in, statistics and text out.

#include "openloop/results/rebuild.hpp"
#include "openloop/results/run_context.hpp"
#include "openloop/results/run_result.hpp"
#include "openloop/results/workload_match.hpp"

#include <boost/json/object.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace openloop {

struct merge_part {
    std::string name;            // shown in the origin tag and the reasons
    std::string requests_jsonl;  // the part's request log
    double offered_rate = 0;     // req/s its schedule offered; 0 unknown
    std::int64_t clock_shift_ns = 0;  // added to every time of its log
    std::string sessions_jsonl;  // a sessions run's session ends; empty for others
};

// line's request times (intended_ns ... end_ns, as request_log writes them)
// plus shift, appended to out; anything else in the line is kept as it is.
void append_shifted(std::string& out, std::string_view line, std::int64_t shift_ns);

struct merged_runs {
    rebuilt_stats rebuilt;       // over every part's lines; its window is the union (above)
    std::string requests_jsonl;  // the parts' lines in order, each with "origin" first
    std::string sessions_jsonl;  // the parts' session ends in order (session ids are global)
    std::int64_t window_ns = 0;  // the union of the parts' windows
    // Parts whose windows overlap ran together and add their offered rates;
    // groups that did not are averaged, weighted by how long each ran.
    double offered_rate = 0;
    std::vector<rebuilt_stats> parts;
};

merged_runs merge_runs(const std::vector<merge_part>& parts);

// A result directory as merging reads it (run/result_reader.hpp).
struct merge_input {
    std::string name;
    std::string requests_jsonl;
    run_context context;               // its run.json; the default when it has none
    std::optional<bool> valid;         // its summary.json's verdict, when it has one
    std::vector<std::string> reasons;
    std::string sessions_jsonl;        // a sessions run's session ends; empty when it has none
};

struct merged_result {
    run_result result;           // the verdict: the merged run's own, and every INVALID part's reasons
    boost::json::object summary; // summary.json: the result, and "merged" (the parts, window, clock, start spread)
    run_context context;         // run.json's: the first part's, its shard gone, on the wall clock
    std::string requests_jsonl;
    std::string sessions_jsonl;  // empty unless the parts were sessions runs
};

// A part that is not the same run as the first: its run.json differs in a
// flag that defines the workload or the server (workload_match.hpp).
struct part_mismatch {
    std::string part;
    std::vector<run_difference> differences;
};
// Each part against the first; parts without a recorded config are left out
// (unchecked_parts names them).
std::vector<part_mismatch> merge_mismatches(const std::vector<merge_input>& parts);
std::vector<std::string> unchecked_parts(const std::vector<merge_input>& parts);
// "B: model: x vs y; C: rate: rate 4 vs 8"
std::string mismatches_text(const std::vector<part_mismatch>& mismatches);

// Merges results: on the wall clock when every part says where its schedule
// started on it (run_clock), else on the host's monotonic clock. parts is not empty.
// Parts of different runs are merged as given: summary.json's "merged" records
// their differences and allow_mismatch (whether the user asked for it), and a
// target, model or arrival that differs names every part's.
merged_result merge_results(const std::vector<merge_input>& parts, bool allow_mismatch = false);

}  // namespace openloop
