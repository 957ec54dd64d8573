#include "openloop/measure/model_stats.hpp"

#include "openloop/measure/request_metrics.hpp"

#include <utility>

namespace openloop {

int model_histogram_digits(std::size_t model_index) { return model_index < models_at_full_precision ? 3 : 2; }

model_stats::model_stats(std::string model_name, std::size_t index)
    : name(std::move(model_name)),
      ttft(histogram::default_highest, model_histogram_digits(index)),
      tpot(histogram::default_highest, model_histogram_digits(index)),
      itl(histogram::default_highest, model_histogram_digits(index)),
      e2e(histogram::default_highest, model_histogram_digits(index)),
      ttfa(histogram::default_highest, model_histogram_digits(index)) {}

void record_model_completed(model_stats& s, const request_timeline& r, const request_metrics& m, bool good) {
    ++s.completed;
    s.input_tokens += r.input_tokens;
    s.output_tokens += m.output_tokens;
    if (m.ttft >= 0) s.ttft.record(m.ttft);
    if (m.tpot >= 0) s.tpot.record(m.tpot);
    if (m.e2e >= 0) s.e2e.record(m.e2e);
    record_ttfa(s.ttfa, m);
    record_itl(s.itl, r, m.bad_usage);
    if (good) ++s.good;
}

}  // namespace openloop
