#pragma once
// requests.jsonl: one line per request as it ends (ids, lengths, every
// timestamp, status, error class), streamed so memory does not grow with the
// run; openloop's own request log, replayable as a trace.

#include "openloop/measure/jsonl_file.hpp"
#include "openloop/measure/request_metrics.hpp"
#include "openloop/measure/request_sink.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace openloop {

class request_log : public request_sink {
public:
    // Truncates path; throws std::runtime_error naming it when it cannot.
    // chunk_gaps: each line also lists the gaps between its content chunks (chunk_gaps_ms).
    // session_stride > 0: a sessions run, each line names its session and turn (index / stride, and from 1).
    void open(const std::string& path, std::string request_id_prefix, bool chunk_gaps = false, int session_stride = 0);
    bool is_open() const { return out_.is_open(); }
    // A mixed run's model names (each line then names its "model"), and --image-size's
    // bucket labels (a media line's "bucket"); both empty by default.
    void set_names(std::vector<std::string> models, std::vector<std::string> buckets);
    // A request's line, as it ends; no-op while not open.
    void ended(std::uint64_t index, const request_timeline& r, const logged_end& end) override;
    void flush();
    // Flushes; throws std::runtime_error naming the file when any write failed.
    void check();
    void close();

private:
    jsonl_file out_;
    std::string id_prefix_;
    bool chunk_gaps_ = false;
    std::uint64_t session_stride_ = 0;
    std::vector<std::string> models_, buckets_;
    std::string line_, id_;  // reused for every line
};

}  // namespace openloop
