#pragma once
// The --rag-* flags: retrieval-augmented prompts (load/rag.hpp).

#include "openloop/run/runner.hpp"

#include <boost/program_options.hpp>

namespace openloop {

boost::program_options::options_description rag_options();
// Throws usage_error naming the flag at fault.
void fill_rag(const boost::program_options::variables_map& vm, run_options& o);

}  // namespace openloop
