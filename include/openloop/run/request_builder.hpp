#pragma once
// Each request's bytes, built before its send time for every mode: the JSON
// body (request_body.hpp) under its HTTP head (request_writer.hpp). The memory
// of ended requests' bytes goes to the next ones built, so a run in its
// stride allocates none.

#include "openloop/load/workload.hpp"
#include "openloop/run/request_body.hpp"
#include "openloop/wire/client_options.hpp"
#include "openloop/wire/request_writer.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace openloop {

class run_plan;

class request_builder {
public:
    // Builds the body's fixed parts now: a bad --extra-body fails before the run starts.
    explicit request_builder(const run_plan& plan);

    // The --model entry of the request with this global index (0 when the run has one model).
    std::uint8_t model_of(std::uint64_t index) const;
    // Fills spec.media first (the run's media set picks it from the index).
    // session: the session's id, sent as X-Session-ID; < 0: not a session's turn.
    prepared_request build(request_spec& spec, std::uint64_t index, std::int64_t session = -1);
    // An ended request's bytes: kept (emptied) for a later build, up to a bound.
    void recycle(std::string& bytes);
    // Its bytes and its list of splices.
    void recycle(prepared_request& r);

private:
    // Its images and clips counted, and its images' bucket (-1: several, or files).
    void set_media_shape(prepared_request& p, const request_spec& spec) const;

    const run_plan& plan_;
    const request_body body_;
    std::string body_text_;  // each request's body before it joins its headers: the memory is reused
    static constexpr std::size_t max_spare_bytes = 256;
    std::vector<std::string> spare_bytes_;
    std::vector<std::vector<body_splice>> spare_splices_;
};

}  // namespace openloop
