#include "openloop/run/request_builder.hpp"

#include "openloop/run/layer_options.hpp"

#include "openloop/run/runner.hpp"

#include <utility>

namespace openloop {

request_builder::request_builder(const run_options& o, const client_options& co) : o_(o), co_(co), body_(body_options_for(o)) {}

std::uint8_t request_builder::model_of(std::uint64_t index) const { return o_.models.pick(index, o_.workload.seed); }

prepared_request request_builder::build(const request_spec& spec, std::uint64_t index, std::int64_t session) {
    prepared_request p;
    body_text_.clear();
    body_.append(body_text_, spec, o_.models.mixed() ? o_.models.name(spec.model) : model_);
    if (!spare_bytes_.empty()) {
        p.bytes = std::move(spare_bytes_.back());
        spare_bytes_.pop_back();
    }
    p.head = write_http_request(p.bytes, co_, o_.request_id_prefix, index, body_text_, session);
    p.model = spec.model;
    p.input_tokens = spec.input_tokens + o_.tools_prompt_tokens;
    p.max_tokens = spec.max_tokens;
    return p;
}

void request_builder::recycle(std::string& bytes) {
    if (spare_bytes_.size() < max_spare_bytes) {
        bytes.clear();
        spare_bytes_.push_back(std::move(bytes));
    }
}

}  // namespace openloop
