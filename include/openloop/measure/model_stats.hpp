#pragma once
// One model's share of a mixed run (--model a=0.5,b=0.5): its requests, tokens and the
// latency families a user judges a model by, beside the run's totals (run_stats).
// Kept only in a mixed run, one per model, allocated when the run starts (or, rebuilt
// from a log, when its first line names the model).

#include "openloop/measure/histogram.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace openloop {

// request_metrics.hpp (which includes run_stats.hpp, and that this header).
struct request_timeline;
struct request_metrics;

// The first 16 models' histograms keep the run's 3 significant digits (264 KiB each); a
// model past them keeps 2 (within 0.5 % of a sample, an eighth of the memory), so even
// 255 models of 5 families stay within some 200 MiB.
inline constexpr std::size_t models_at_full_precision = 16;
int model_histogram_digits(std::size_t model_index);

struct model_stats {
    // index: its place among the run's models (its histograms' precision).
    explicit model_stats(std::string model_name = {}, std::size_t index = 0);

    std::string name;
    std::uint64_t started = 0, completed = 0, failed = 0, refused = 0, good = 0;
    std::int64_t input_tokens = 0, output_tokens = 0;
    histogram ttft, tpot, itl, e2e, ttfa;
};

// A per-model family under its summary.json name, as run_result's latency_families.
struct model_family {
    const char* key;
    const char* label;
    histogram model_stats::*member;
};
inline constexpr std::array<model_family, 5> model_families = {{
    {"ttft", "TTFT", &model_stats::ttft},
    {"tpot", "TPOT", &model_stats::tpot},
    {"itl", "ITL", &model_stats::itl},
    {"e2el", "E2E", &model_stats::e2e},
    {"ttfa", "TTFA", &model_stats::ttfa},
}};

// A completed, measured request of this model: as record_completed counts it in the run.
void record_model_completed(model_stats& s, const request_timeline& r, const request_metrics& m, bool good);

}  // namespace openloop
