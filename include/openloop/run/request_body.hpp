#pragma once
// The JSON body every request sends, built ahead of its send time from what
// the workload asked (prompt or token ids, output length) and how the run
// samples: the model, temperature and seed, ignore_eos (with min_tokens), the
// stream options that make servers report usage, and --extra-body, whose
// fields win over ours. Pure: no sockets, no clocks.

#include "openloop/load/workload.hpp"
#include "openloop/run/runner.hpp"

#include <boost/json/object.hpp>

#include <string>

namespace openloop {

class request_body {
public:
    // Throws std::runtime_error when --extra-body is not a JSON object.
    explicit request_body(const run_options& o);

    std::string json(const request_spec& spec, const std::string& model) const;

private:
    const run_options& o_;
    boost::json::object extra_;
    bool chat_;
};

}  // namespace openloop
