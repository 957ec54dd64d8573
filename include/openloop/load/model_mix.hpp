#pragma once
// --model as a weighted list ("base=0.5,sql-lora=0.3,chat-lora=0.2"): which
// model each request goes to. A request's model is a function of its global
// index and the run's seed only, so shards and reruns agree; a session keeps
// its first turn's model for all its turns. Pure: no sockets, no clocks.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace openloop {

struct model_share {
    std::string name;
    double weight = 1;
};

class model_mix {
public:
    model_mix() = default;
    // One model (or none yet: the first id of GET /v1/models fills it in).
    explicit model_mix(std::string name);
    // "a=0.5,b=0.3,c" (a name without a weight weighs 1; weights are normalized).
    // Throws input_error naming --model and the entry at fault.
    static model_mix parse(std::string_view text);

    const std::vector<model_share>& models() const { return models_; }
    bool mixed() const { return models_.size() > 1; }
    // The model of the request with this global index.
    std::uint8_t pick(std::uint64_t global_index, std::uint64_t seed) const;
    const std::string& name(std::uint8_t i) const { return models_[i].name; }

private:
    std::vector<model_share> models_;
    std::vector<double> cumulative_;  // normalized running sums of the weights
};

}  // namespace openloop
