#pragma once
// Which API a run, sweep or soak loads and how its answers come: --endpoint
// (chat, completions, responses, embeddings) and --no-stream, and the flags
// that make no sense with them (a TTFT SLO for answers that are not streamed, an output
// length for embeddings), refused as usage errors naming both.

#include "openloop/run/runner.hpp"

#include <boost/program_options/options_description.hpp>
#include <boost/program_options/variables_map.hpp>

#include <string_view>

namespace openloop {

boost::program_options::options_description endpoint_options();

// o.endpoint and o.stream := what vm says, after the other groups were filled
// (it checks their flags against the endpoint). Throws usage_error.
void fill_endpoint(const boost::program_options::variables_map& vm, run_options& o);

// Throws usage_error when metric (ttft, tpot, itl, icl, ...) needs streamed
// answers and o's are not; flag names where the metric was asked for.
void require_streamed(const run_options& o, std::string_view metric, std::string_view flag);

}  // namespace openloop
