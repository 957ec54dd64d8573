#pragma once
// The end-of-run table, rendered from the typed run result: first line
// `VALID` or `INVALID: <first reason>`, so no number of an invalid run is
// read alone; then counts, throughput, tokens, the latency families and the
// failures by class and HTTP status.

#include "openloop/results/run_result.hpp"

#include <string>

namespace openloop {

std::string format_table(const run_result& result);

}  // namespace openloop
