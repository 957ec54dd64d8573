#include "openloop/measure/run_stats.hpp"

namespace openloop {

int input_bucket(int input_tokens) {
    int bucket = 0;
    for (std::size_t i = 1; i < input_bucket_lower.size(); ++i) {
        if (input_tokens >= input_bucket_lower[i]) {
            bucket = static_cast<int>(i);
        }
    }
    return bucket;
}

double run_stats::duration_s() const {
    if (completed + failed == 0 || last_end_ns <= first_intended_ns) {
        return 0;
    }
    return static_cast<double>(last_end_ns - first_intended_ns) / 1e9;
}

}  // namespace openloop
