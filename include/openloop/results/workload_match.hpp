#pragma once
// Whether two runs drove the same workload, read from their run.json: what
// `merge` asks of its parts (the shards or repeats of one run) and `compare`
// of its two runs (one workload, two servers). The differences are grouped by
// what a user calls them: the server under test (target, model, the
// tokenizer it was calibrated with) and the workload (endpoint, lengths,
// prompts, rate, arrival, sampling, the tokenizer asked for). What differs
// between the parts of one run by design is never looked at: seed, shard,
// start time, duration and request count, warm-up, timeouts, out dir,
// reporting flags. Pure.

#include "openloop/results/run_context.hpp"

#include <boost/json/array.hpp>

#include <string>
#include <vector>

namespace openloop {

struct run_difference {
    std::string aspect;         // "target", "model", "tokenizer", "endpoint", "lengths", "prompts", "rate", ...
    std::string field;          // the flag or run.json field, e.g. "input-len" or "target"
    std::string first, second;  // its values as text; "(not set)" when a run has none
    // false: the server under test differs (target, model, the tokenizer it
    // calibrated), which is what compare is for; true: the load it was given.
    bool workload = true;
};

// Every difference of b from a. Contexts without a config (a run.json from
// before one was recorded, or none at all) are the caller's to refuse or warn
// of: nothing can be told of them.
std::vector<run_difference> run_differences(const run_context& a, const run_context& b);

bool any_workload_difference(const std::vector<run_difference>& differences);

// One line: "rate: rate 4 vs 8; model: \"a\" vs \"b\"".
std::string differences_text(const std::vector<run_difference>& differences);
// [{"aspect", "field", "first", "second", "workload"}...]
boost::json::array differences_json(const std::vector<run_difference>& differences);

}  // namespace openloop
