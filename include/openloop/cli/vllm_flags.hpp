#pragma once
// A `vllm bench serve` command line read as openloop's: the flags a vLLM
// user types, with vLLM's defaults, become `openloop run` flags of the same
// meaning, and what vLLM writes into its result file beside the metrics
// (date, backend, label, model and tokenizer ids, metadata) is kept for the
// summary. Where openloop differs it says so in a note; a flag it cannot honour
// is a usage error naming it. Pure: strings in, strings out.

#include <boost/json/object.hpp>

#include <functional>
#include <string>
#include <vector>

namespace openloop {

struct vllm_translation {
    std::vector<std::string> run_args;  // for parse_run_command
    std::vector<std::string> notes;     // printed once, before the run
    boost::json::object result_keys;    // vLLM's top-level keys, with vLLM's types
    std::string result_file;            // --save-result: where the vLLM-shaped result goes; empty: none
    bool detailed = false;              // --save-detailed: add vLLM's per-request arrays
    std::vector<std::string> percentile_metrics;  // --percentile-metrics: ttft, tpot, itl, e2el
    std::vector<double> percentiles;              // --metric-percentiles, e.g. 50, 99
};

// args: everything after `openloop` (no command). now: the date as vLLM
// writes it (YYYYMMDD-HHMMSS), used in the result's name and "date".
// openloop_flag: whether a flag is one of openloop run's, which is never read
// as an abbreviation of a vLLM flag (--sharegpt is openloop's, not
// --sharegpt-output-len). Throws usage_error.
vllm_translation translate_vllm_args(const std::vector<std::string>& args, const std::string& now,
                                     const std::function<bool(const std::string&)>& openloop_flag = {});

// Whether args (after `openloop`) are a vLLM bench command line: flags, no command.
bool looks_like_vllm_args(const std::vector<std::string>& args);

}  // namespace openloop
