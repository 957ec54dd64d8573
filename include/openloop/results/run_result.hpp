#pragma once
// The typed result of one run: what the reporter measured, how the run was
// driven, and what follows from the two (verdict, error tally, rates, token
// sources). Built once by make_run_result; summary.json, the end-of-run table
// and a sweep's stage row are all renderings of it.

#include "openloop/measure/run_stats.hpp"
#include "openloop/results/run_context.hpp"
#include "openloop/results/verdict.hpp"

#include <array>
#include <optional>
#include <string_view>

namespace boost::json {
class value;
}

namespace openloop {

// A latency histogram of run_stats under its summary.json name (X in
// mean_X_ms; vLLM's four first, then ours) and its table label ("" = no row).
struct latency_family {
    std::string_view key;
    std::string_view label;
    histogram run_stats::*member;
};

inline constexpr std::array<latency_family, 15> latency_families = {{
    {"ttft", "TTFT", &run_stats::ttft},
    {"tpot", "TPOT", &run_stats::tpot},
    {"itl", "ITL", &run_stats::itl},
    {"e2el", "E2E", &run_stats::e2e},
    {"icl", "ICL", &run_stats::icl},
    {"lag", "lag", &run_stats::lag},
    {"connect", "connect", &run_stats::connect},
    {"ttfb", "", &run_stats::ttfb},
    {"ttft_from_send", "", &run_stats::ttft_from_send},
    {"e2el_from_send", "", &run_stats::e2e_from_send},
    {"queue", "queue", &run_stats::queue},  // --max-concurrency: the wait for a free slot
    // A thinking model's: time to first answer token, how long it thought, ITL of each phase.
    {"ttfa", "TTFA", &run_stats::ttfa},
    {"reasoning", "thinking", &run_stats::reasoning_time},
    {"itl_reasoning", "ITL thinking", &run_stats::itl_reasoning},
    {"itl_answer", "ITL answer", &run_stats::itl_answer},
}};

// TTFT, TPOT, ITL, ICL, TTFT from the send and the thinking model's clocks:
// defined only for streamed answers, so a run whose answers were single JSON
// bodies does not report them.
constexpr bool stream_metric(std::string_view key) {
    return key == "ttft" || key == "tpot" || key == "itl" || key == "icl" || key == "ttft_from_send" || key == "ttfa" ||
           key == "reasoning" || key == "itl_reasoning" || key == "itl_answer";
}

// The families only a run whose model thought shows in its table.
constexpr bool reasoning_metric(std::string_view key) {
    return key == "ttfa" || key == "reasoning" || key == "itl_reasoning" || key == "itl_answer";
}

// One statistic of a histogram of ns, in ms: mean, std, median, p<N> (p50,
// p99.9, ...), min or max. Empty without samples (no sample is not a 0 ms
// sample) or for an unknown statistic; +inf where it falls on an infinite
// sample (a request that never answered, in TTFA).
std::optional<double> latency_ms(const histogram& h, std::string_view stat);
// The same as JSON (base/json_text.hpp's ms_json): the number, "inf", or null where there is none.
boost::json::value latency_ms_json(const histogram& h, std::string_view stat);

// The rule for a thinking model's requests that never answered (max_tokens spent thinking):
// each is infinitely late, an infinite sample of every TTFA histogram (the run's, a model's,
// a window's), so every TTFA percentile, threshold, SLO and gate past them sees it. How many
// the run had.
std::uint64_t never_answered(const run_stats& s);

struct run_result {
    run_stats stats;
    run_context context;
    verdict validity;
    error_tally errors;

    double duration_s = 0;
    double request_throughput = 0;      // completed / duration
    double request_goodput = 0;         // good / duration
    double output_throughput = 0;       // output tokens / duration
    double total_token_throughput = 0;  // input + output tokens / duration
    // Where output token counts came from: "usage", "chunks" (an estimate),
    // "none" (non-streamed answers without usage: not counted) or "mixed";
    // empty when nothing completed.
    std::string_view output_tokens_source;
    // Where ITL samples came from: "tokens" (per-chunk counts), "chunks"
    // (chunk intervals) or "mixed"; empty without samples.
    std::string_view itl_source;
    // Where reasoning token counts came from: "usage", "usage_deltas",
    // "usage_deltas_split" or "chunks" (estimates) or "mixed"; empty when no request thought.
    std::string_view reasoning_tokens_source;
};

run_result make_run_result(run_stats stats, run_context context);

}  // namespace openloop
